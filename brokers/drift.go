package brokers

import (
	"context"
	"maps"
	"slices"
	"strings"
	"time"

	"rmqconsole/cluster"
)

// DriftReport is where the broker processes of each cluster differ in configuration.
type DriftReport struct {
	Clusters  []ClusterDrift          `json:"clusters"`
	Failures  []cluster.BrokerFailure `json:"failures"`
	CheckedAt time.Time               `json:"checkedAt"`
}

// ClusterDrift is one cluster's processes, masters and slaves, and the keys whose values
// differ between them.
type ClusterDrift struct {
	Cluster   string     `json:"cluster"`
	Processes []Runtime  `json:"processes"`
	Keys      []KeyDrift `json:"keys"`
}

// KeyDrift is a key whose value differs between a cluster's processes.
type KeyDrift struct {
	Key string `json:"key"`
	// Values are each process's value, in the order of Processes, masked as on the
	// broker page; "" when the process has no such key (Absent).
	Values []string `json:"values"`
	Absent []bool   `json:"absent"`
	// Expected is set for keys that name what each process is (its name, id, role,
	// address, ports, files): they differ by design.
	Expected bool `json:"expected"`
}

// ConfigDrift reads every process's configuration and lists, cluster by cluster, the keys
// whose values differ. A process that does not answer is named in Failures and left out.
func (s *Service) ConfigDrift(ctx context.Context) (*DriftReport, error) {
	ci, err := s.cluster.Info(ctx)
	if err != nil {
		return nil, err
	}
	bs, err := s.cluster.Brokers(ctx)
	if err != nil {
		return nil, err
	}
	byCluster := map[string][]Runtime{}
	for _, b := range bs {
		byCluster[b.Cluster] = append(byCluster[b.Cluster], members(ci, b)...)
	}
	var all []Runtime
	for _, name := range slices.Sorted(maps.Keys(byCluster)) {
		all = append(all, byCluster[name]...)
	}
	cfgs, fails := s.readConfigs(ctx, all)
	report := &DriftReport{Clusters: []ClusterDrift{}, Failures: fails, CheckedAt: s.now()}
	i := 0
	for _, name := range slices.Sorted(maps.Keys(byCluster)) {
		cd := ClusterDrift{Cluster: name, Keys: []KeyDrift{}}
		var shown []map[string]ConfigEntry
		for _, p := range byCluster[name] {
			if cfg := cfgs[i]; cfg != nil {
				cd.Processes = append(cd.Processes, p)
				m := map[string]ConfigEntry{}
				for _, e := range masked(cfg) {
					m[e.Key] = e
				}
				shown = append(shown, m)
			}
			i++
		}
		cd.Keys = driftKeys(cfgs[i-len(byCluster[name]):i], shown)
		report.Clusters = append(report.Clusters, cd)
	}
	return report, nil
}

// driftKeys lists the keys whose raw values differ between the processes that answered,
// each shown masked. raw holds every process (nil for one that did not answer); shown the
// masked values of those that did, in order.
func driftKeys(raw []map[string]string, shown []map[string]ConfigEntry) []KeyDrift {
	var cfgs []map[string]string
	for _, c := range raw {
		if c != nil {
			cfgs = append(cfgs, c)
		}
	}
	keys := map[string]bool{}
	for _, c := range cfgs {
		for k := range c {
			keys[k] = true
		}
	}
	out := []KeyDrift{}
	for _, k := range slices.Sorted(maps.Keys(keys)) {
		differs := false
		first, firstOK := cfgs[0][k]
		for _, c := range cfgs[1:] {
			v, ok := c[k]
			if ok != firstOK || v != first {
				differs = true
				break
			}
		}
		if !differs {
			continue
		}
		kd := KeyDrift{Key: k, Expected: perProcess(k)}
		for _, m := range shown {
			e, ok := m[k]
			kd.Values = append(kd.Values, e.Value)
			kd.Absent = append(kd.Absent, !ok)
		}
		out = append(out, kd)
	}
	// Keys that differ by mistake first.
	slices.SortStableFunc(out, func(a, b KeyDrift) int {
		switch {
		case a.Expected == b.Expected:
			return 0
		case !a.Expected:
			return -1
		}
		return 1
	})
	return out
}

// perProcess reports whether a key names what one process is, so that it differs
// between processes by design.
func perProcess(key string) bool {
	if fixedAtStart(key) {
		return true
	}
	switch key {
	case "haMasterAddress", "duplicationEnable", "brokerIdentity", "startAcceptSendRequestTimeStamp",
		// A slave starts with 10 points less than its master (BrokerStartup).
		"accessMessageInMemoryMaxRatio":
		return true
	}
	k := strings.ToLower(key)
	return strings.Contains(k, "path") || strings.HasSuffix(k, "file") || strings.Contains(k, "address") && strings.Contains(k, "ha")
}
