package rocketmq

import "testing"

func TestConnectionVersionNameNamesTheRelease(t *testing.T) {
	for _, c := range []struct {
		lang    string
		ordinal int
		want    string
	}{
		{"JAVA", 479, "5.3.3"},
		{"GO", 317, "4.5.2 protocol"},
		{"JAVA", 12345, "ordinal 12345"},
		{"CPP", 12345, "ordinal 12345"},
	} {
		if got := (Connection{Language: c.lang, Version: c.ordinal}).VersionName(); got != c.want {
			t.Errorf("VersionName of %s %d = %q, want %q", c.lang, c.ordinal, got, c.want)
		}
		// A producer listed by GET_ALL_PRODUCER_INFO is named the same way.
		if got := (ProducerInfo{Language: c.lang, Version: c.ordinal}).VersionName(); got != c.want {
			t.Errorf("producer VersionName of %s %d = %q, want %q", c.lang, c.ordinal, got, c.want)
		}
	}
}
