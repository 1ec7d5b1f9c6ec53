package brokers

import (
	"regexp"
	"strings"
)

// A broker's configuration has some four hundred keys. ConfigSection files each under a
// section named by what it tunes, so a reader opens the one they need instead of
// scrolling through all of them. The sections, in the order pages show them:
const (
	SectionIdentity     = "identity"     // who the broker is and where it listens
	SectionNameServer   = "nameserver"   // how it finds and registers with NameServers
	SectionReplication  = "replication"  // master/slave, DLedger, controller
	SectionMessages     = "messages"     // topics, sending, pulling, offsets, filters
	SectionStorage      = "storage"      // commit log, consume queues, flushing, disk, RocksDB
	SectionTimer        = "timer"        // timer and delayed messages
	SectionPop          = "pop"          // POP consumption and revive
	SectionTransactions = "transactions" // transactional messages
	SectionThreads      = "threads"      // thread pools and their queues
	SectionNetwork      = "network"      // remoting server and client
	SectionSecurity     = "security"     // ACL
	SectionMetrics      = "metrics"      // metrics, statistics
	SectionOther        = "other"
)

// ConfigSections are the sections in the order pages show them.
var ConfigSections = []string{SectionIdentity, SectionNameServer, SectionReplication, SectionMessages, SectionStorage,
	SectionTimer, SectionPop, SectionTransactions, SectionThreads, SectionNetwork, SectionSecurity, SectionMetrics, SectionOther}

// identityKeys are the keys an operator checks first: the broker's name, role and address.
var identityKeys = map[string]bool{"brokerName": true, "brokerClusterName": true, "brokerId": true, "brokerIP1": true,
	"brokerIP2": true, "brokerRole": true, "brokerPermission": true, "regionId": true, "rocketmqHome": true,
	"listenPort": true, "bindAddress": true}

// sectionWords: a key goes to the first section one of whose words it contains. The
// order settles keys with words of several (haTransferBatchSize is replication before
// it is messages; sendThreadPoolQueueCapacity is a thread pool before it is sending).
var sectionWords = []struct {
	section string
	words   []string
}{
	{SectionNameServer, []string{"namesrv", "srv", "register", "registration"}},
	{SectionReplication, []string{"ha", "slave", "dleger", "leger", "controller", "replicas", "learner", "election", "master", "acting", "member", "state", "metadata"}},
	{SectionTimer, []string{"timer", "delay", "schedule"}},
	{SectionPop, []string{"pop", "revive", "ck"}},
	{SectionTransactions, []string{"transaction"}},
	{SectionSecurity, []string{"acl", "auth", "authentication", "authorization"}},
	{SectionMetrics, []string{"metric", "metrics", "stats", "stat", "account", "commercial"}},
	{SectionThreads, []string{"thread", "threads", "executor", "semaphore"}},
	{SectionStorage, []string{"store", "storage", "commit", "mapped", "maped", "mapper", "flush", "disk", "file", "files",
		"index", "cq", "rocks", "rocksdb", "compaction", "compression", "clean", "delete", "reserved", "page", "swap",
		"recover", "recovery", "memory", "transient", "warm", "dispatch", "reput", "cold", "wal", "crc", "checksum"}},
	{SectionNetwork, []string{"server", "client", "netty", "socket", "channel", "connect", "tls", "proxy", "reconnect", "network", "net", "epoll", "water"}},
	{SectionMessages, []string{"topic", "message", "msg", "msgs", "subscription", "consume", "consumer", "pull", "send",
		"put", "retry", "filter", "tag", "trace", "lmq", "queue", "transfer", "reply", "polling", "offset", "lock", "group", "recall"}},
}

// camelWord is one word of a camelCase key: a capitalised word, an acronym (DB in
// statRocksDBCQ), or a lower-case run.
var camelWord = regexp.MustCompile(`[A-Z]+[a-z0-9]*|[a-z0-9]+`)

// ConfigSection is the section of a broker configuration key (SectionOther when no
// section's word is in it).
func ConfigSection(key string) string {
	if identityKeys[key] {
		return SectionIdentity
	}
	words := map[string]bool{}
	for _, w := range camelWord.FindAllString(key, -1) {
		words[strings.ToLower(w)] = true
	}
	for _, s := range sectionWords {
		for _, w := range s.words {
			if words[w] {
				return s.section
			}
		}
	}
	return SectionOther
}

// ConfigSectionEntries is one section of a configuration and its entries.
type ConfigSectionEntries struct {
	Section string
	Entries []ConfigEntry
}

// Sectioned files entries (sorted by key) under their sections, in ConfigSections'
// order, keeping only keys that contain filter (any case; "" keeps every key). Empty
// sections are left out.
func Sectioned(entries []ConfigEntry, filter string) []ConfigSectionEntries {
	filter = strings.ToLower(strings.TrimSpace(filter))
	by := map[string][]ConfigEntry{}
	for _, e := range entries {
		if filter != "" && !strings.Contains(strings.ToLower(e.Key), filter) {
			continue
		}
		s := ConfigSection(e.Key)
		by[s] = append(by[s], e)
	}
	var out []ConfigSectionEntries
	for _, s := range ConfigSections {
		if len(by[s]) > 0 {
			out = append(out, ConfigSectionEntries{Section: s, Entries: by[s]})
		}
	}
	return out
}
