package lookup

import (
	"strings"
	"testing"
	"time"

	"rmqconsole/fault"
)

// Each rule of a key or a tag has its own sentence: a long key without spaces is told
// it is too long, not that it has spaces.
func TestKeyAndTagRulesHaveTheirOwnSentence(t *testing.T) {
	long := strings.Repeat("k", 300)
	for _, c := range []struct {
		name      string
		err       error
		want, not string
	}{
		{"long key", func() error { q := KeyQuery{Topic: "T", Key: long}; return q.Validate() }(), "at most 255 characters", "spaces"},
		{"key with a space", func() error { q := KeyQuery{Topic: "T", Key: "a b"}; return q.Validate() }(), "no spaces", "at most"},
		{"long tag", rangeErr(long), "at most 255 characters", "spaces"},
		{"tag with a space", rangeErr("a b"), "no spaces", "'|'"},
		{"tag with a bar", rangeErr("a|b"), "'|'", "spaces"},
	} {
		ie := fault.As(c.err)
		if ie == nil || ie.Code != fault.Invalid {
			t.Errorf("%s: %v, want an input error", c.name, c.err)
			continue
		}
		if s := ie.Error(); !strings.Contains(s, c.want) || strings.Contains(s, c.not) {
			t.Errorf("%s: %q, want a sentence about %q only", c.name, s, c.want)
		}
	}
}

func rangeErr(tag string) error {
	q := RangeQuery{Topic: "T", Begin: time.Unix(1_700_000_000, 0), End: time.Unix(1_700_000_060, 0), Tag: tag}
	return q.Validate()
}

// A long id that is no message id is quoted back cut between characters: a Chinese id
// reads as Chinese, not as escaped bytes of a split character.
func TestBadIDIsQuotedCutBetweenCharacters(t *testing.T) {
	q := IDQuery{ID: strings.Repeat("消息", 50)}
	_, err := q.Validate()
	if err == nil {
		t.Fatal("an id of Chinese characters passed")
	}
	if s := err.Error(); strings.Contains(s, `\x`) || !strings.Contains(s, "消息消息") || !strings.Contains(s, "…") {
		t.Errorf("the id is quoted back as %q", s)
	}
}
