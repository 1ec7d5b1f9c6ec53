package rocketmq

import (
	"crypto/md5"
	"encoding/binary"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Names of the allocation strategies, as the Java strategies' getName()
// returns them. Consumers report a class name instead; see StrategyName.
const (
	StrategyAveragely         = "AVG"
	StrategyAveragelyByCircle = "AVG_BY_CIRCLE"
	StrategyConsistentHash    = "CONSISTENT_HASH"
)

// consistentHashVirtualNodes is the Java strategy's default count of
// virtual nodes per client.
const consistentHashVirtualNodes = 10

// AllocateAveragely returns the queues that client gets under Java's
// AllocateMessageQueueAveragely ("AVG", the default of both the Java and
// the Go client): queues and clients are sorted as the clients sort them,
// the queues are cut into consecutive blocks, and the first
// len(queues) % len(clients) clients get one extra queue. A client not in
// clients, or empty input, gets nothing. The inputs are not modified.
func AllocateAveragely(queues []MessageQueue, clients []string, client string) []MessageQueue {
	mqs, cids := sortedInputs(queues, clients)
	index := slices.Index(cids, client)
	if client == "" || index < 0 || len(mqs) == 0 {
		return nil
	}
	start, n := averageBlock(len(mqs), len(cids), index)
	if n <= 0 {
		return nil
	}
	return slices.Clone(mqs[start : start+n])
}

// averageBlock is the arithmetic of AllocateMessageQueueAveragely: the
// first queue index and the count for the client at index.
func averageBlock(nq, nc, index int) (start, n int) {
	mod := nq % nc
	var size int
	switch {
	case nq <= nc:
		size = 1
	case mod > 0 && index < mod:
		size = nq/nc + 1
	default:
		size = nq / nc
	}
	if mod > 0 && index < mod {
		start = index * size
	} else {
		start = index*size + mod
	}
	return start, min(size, nq-start)
}

// AllocateAveragelyByCircle returns the queues that client gets under
// Java's AllocateMessageQueueAveragelyByCircle ("AVG_BY_CIRCLE"): after
// sorting, the client at index i gets every queue whose position modulo
// the client count is i. The inputs are not modified.
func AllocateAveragelyByCircle(queues []MessageQueue, clients []string, client string) []MessageQueue {
	mqs, cids := sortedInputs(queues, clients)
	index := slices.Index(cids, client)
	if client == "" || index < 0 {
		return nil
	}
	var out []MessageQueue
	for i := index; i < len(mqs); i += len(cids) {
		out = append(out, mqs[i])
	}
	return out
}

// ExpectedAssignment maps every queue to the client that should own it
// under the named strategy ("AVG", "AVG_BY_CIRCLE" or "CONSISTENT_HASH", as
// Java's getName() returns them; StrategyName converts a reported class
// name). Queues no client gets (more clients than queues leaves some idle,
// never the reverse) and all queues when clients is empty are absent from
// the map. An unknown strategy is an error, since the console cannot then
// say what the assignment should be.
func ExpectedAssignment(strategy string, queues []MessageQueue, clients []string) (map[MessageQueue]string, error) {
	mqs, cids := sortedInputs(queues, clients)
	cids = slices.Compact(cids) // a duplicate id would only shadow itself
	out := make(map[MessageQueue]string, len(mqs))
	if len(cids) == 0 {
		switch strategy {
		case StrategyAveragely, StrategyAveragelyByCircle, StrategyConsistentHash:
			return out, nil
		}
	}
	switch strategy {
	case StrategyAveragely:
		for index, cid := range cids {
			start, n := averageBlock(len(mqs), len(cids), index)
			for i := start; i < start+n; i++ {
				out[mqs[i]] = cid
			}
		}
	case StrategyAveragelyByCircle:
		for i, mq := range mqs {
			out[mq] = cids[i%len(cids)]
		}
	case StrategyConsistentHash:
		ring := newHashRing(cids, consistentHashVirtualNodes)
		for _, mq := range mqs {
			out[mq] = ring.route(mq.String())
		}
	default:
		return nil, fmt.Errorf("expected assignment: unknown allocation strategy %q; the console can compute %s, %s and %s", strategy, StrategyAveragely, StrategyAveragelyByCircle, StrategyConsistentHash)
	}
	return out, nil
}

// StrategyName turns the allocateMessageQueueStrategy property a Java
// consumer reports in its running info (a class name, often with
// "@hash") into the strategy name ExpectedAssignment takes. It returns ""
// for strategies the console cannot compute. An empty property, as Go
// consumers report, means their default, AVG.
func StrategyName(property string) string {
	class, _, _ := strings.Cut(property, "@")
	if i := strings.LastIndexByte(class, '.'); i >= 0 {
		class = class[i+1:]
	}
	switch class {
	case "", "AllocateMessageQueueAveragely":
		return StrategyAveragely
	case "AllocateMessageQueueAveragelyByCircle":
		return StrategyAveragelyByCircle
	case "AllocateMessageQueueConsistentHash":
		return StrategyConsistentHash
	case StrategyAveragely, StrategyAveragelyByCircle, StrategyConsistentHash:
		return class
	}
	return ""
}

// sortedInputs returns sorted copies: clients sort queues with
// MessageQueue.compareTo and client ids in natural String order before
// allocating, so the expected result depends only on the sets.
func sortedInputs(queues []MessageQueue, clients []string) ([]MessageQueue, []string) {
	mqs := slices.Clone(queues)
	SortMessageQueues(mqs)
	cids := slices.Clone(clients)
	slices.SortStableFunc(cids, compareJavaStrings)
	return mqs, cids
}

// hashRing is Java's ConsistentHashRouter with its MD5 hash: each client
// has virtual nodes "<cid>-<i>" on a ring of 32-bit hashes, and a key goes
// to the first node at or after its hash, wrapping around.
type hashRing struct {
	hashes []uint32 // sorted
	owner  map[uint32]string
}

func newHashRing(cids []string, virtualNodes int) *hashRing {
	r := &hashRing{owner: make(map[uint32]string, len(cids)*virtualNodes)}
	for _, cid := range cids {
		for i := range virtualNodes {
			// Java's TreeMap.put replaces an earlier node on a collision.
			r.owner[md5Hash(cid+"-"+strconv.Itoa(i))] = cid
		}
	}
	for h := range r.owner {
		r.hashes = append(r.hashes, h)
	}
	slices.Sort(r.hashes)
	return r
}

func (r *hashRing) route(key string) string {
	if len(r.hashes) == 0 {
		return ""
	}
	h := md5Hash(key)
	i := sort.Search(len(r.hashes), func(i int) bool { return r.hashes[i] >= h })
	if i == len(r.hashes) {
		i = 0
	}
	return r.owner[r.hashes[i]]
}

// md5Hash is the first four bytes of the MD5 digest as an unsigned
// big-endian number, as Java's ConsistentHashRouter.MD5Hash computes it.
func md5Hash(key string) uint32 {
	sum := md5.Sum([]byte(key))
	return binary.BigEndian.Uint32(sum[:4])
}
