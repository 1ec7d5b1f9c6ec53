package brokers

import (
	"slices"
	"testing"
)

// A broker's keys go under the section of what they tune, the first section whose word
// a key has deciding (a thread pool of sending is a thread pool; HA's transfer size is
// replication); a filter keeps the keys containing it, in any case, and drops the
// sections left empty.
func TestConfigKeysGoUnderTheSectionOfWhatTheyTune(t *testing.T) {
	for key, want := range map[string]string{
		"brokerName":                  SectionIdentity,
		"listenPort":                  SectionIdentity,
		"namesrvAddr":                 SectionNameServer,
		"fetchNameSrvAddrByDnsLookup": SectionNameServer,
		"haTransferBatchSize":         SectionReplication,
		"enableDLegerCommitLog":       SectionReplication,
		"hashSlot":                    SectionOther, // "ha" is a word, not a prefix
		"flushDiskType":               SectionStorage,
		"rocksdbCompressionType":      SectionStorage,
		"sendThreadPoolQueueCapacity": SectionThreads,
		"timerPrecisionMs":            SectionTimer,
		"popCkMaxBufferSize":          SectionPop,
		"transactionTimeOut":          SectionTransactions,
		"aclEnable":                   SectionSecurity,
		"metricsExporterType":         SectionMetrics,
		"serverSocketRcvBufSize":      SectionNetwork,
		"maxMessageSize":              SectionMessages,
		"autoCreateTopicEnable":       SectionMessages,
	} {
		if got := ConfigSection(key); got != want {
			t.Errorf("%s is under %s, want %s", key, got, want)
		}
	}
	entries := []ConfigEntry{{Key: "brokerName"}, {Key: "flushDiskType"}, {Key: "flushIntervalCommitLog"}, {Key: "maxMessageSize"}}
	var got []string
	for _, s := range Sectioned(entries, "") {
		got = append(got, s.Section)
	}
	if want := []string{SectionIdentity, SectionMessages, SectionStorage}; !slices.Equal(got, want) {
		t.Errorf("sections %v, want %v in the page's order", got, want)
	}
	s := Sectioned(entries, " FLUSH")
	if len(s) != 1 || s[0].Section != SectionStorage || len(s[0].Entries) != 2 {
		t.Errorf("filtered by FLUSH: %+v, want the two flush keys under storage", s)
	}
	if s := Sectioned(entries, "nothing"); len(s) != 0 {
		t.Errorf("filtered by a word no key has: %+v", s)
	}
}
