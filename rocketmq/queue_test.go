package rocketmq

import (
	"slices"
	"testing"
)

func TestMessageQueueString(t *testing.T) {
	q := MessageQueue{Topic: "TopicTest", BrokerName: "broker-a", QueueID: 3}
	if s := q.String(); s != "MessageQueue [topic=TopicTest, brokerName=broker-a, queueId=3]" {
		t.Errorf("String() = %q, want Java's toString text", s)
	}
}

func TestSortMessageQueues(t *testing.T) {
	qs := []MessageQueue{
		{"b", "x", 0}, {"a", "y", 10}, {"a", "y", 2}, {"a", "x", 5},
		{"a", "\uFF21", 0}, {"a", "\U0001F600", 0}, {"A", "z", 0}, {"a", "x", -1},
	}
	SortMessageQueues(qs)
	want := []MessageQueue{
		{"A", "z", 0}, {"a", "x", -1}, {"a", "x", 5}, {"a", "y", 2}, {"a", "y", 10},
		// Java compares UTF-16 units: the surrogate D83D sorts before FF21,
		// although U+1F600 is the larger code point.
		{"a", "\U0001F600", 0}, {"a", "\uFF21", 0}, {"b", "x", 0},
	}
	if !slices.Equal(qs, want) {
		t.Errorf("got  %v\nwant %v", qs, want)
	}
	if !want[0].Less(want[1]) || want[1].Less(want[0]) || want[2].Compare(want[2]) != 0 {
		t.Error("Less/Compare disagree with the sort")
	}
}

func TestCompareJavaStrings(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"", "a", -1}, {"ab", "a", 1}, {"a", "b", -1},
		{"\U0001F600", "\uFFFF", -1}, {"\U0001F600", "\U0001F601", -1}, {"\uE000", "\U00010000", 1},
		{"x\U0001F600", "x\uFF21", -1}, {"\u00e9", "z", 1},
	}
	for _, tc := range tests {
		if got := compareJavaStrings(tc.a, tc.b); sign(got) != tc.want {
			t.Errorf("compareJavaStrings(%q, %q) = %d, want sign %d", tc.a, tc.b, got, tc.want)
		}
	}
}

func sign(n int) int {
	switch {
	case n < 0:
		return -1
	case n > 0:
		return 1
	}
	return 0
}
