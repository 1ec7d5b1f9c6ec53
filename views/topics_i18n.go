package views

import (
	"context"
)

// typeLabel is how a message type reads in a table, in the request's language.
func typeLabel(ctx context.Context, t string) string {
	switch t {
	case "fifo", "normal", "delay", "transaction", "mixed":
		return T(ctx, "topics.type."+t)
	}
	return T(ctx, "topics.type.unknown")
}

// topicsHiddenNote says, after an empty list, how many topics the filter hides.
func topicsHiddenNote(ctx context.Context, vm TopicsVM) string {
	if vm.Hidden == 0 {
		return ""
	}
	return N(ctx, "topics.hidden.note", vm.Hidden)
}

// permOptionLabel is a permission choice in the request's language.
func permOptionLabel(ctx context.Context, p PermOption) string {
	if p.Current {
		return T(ctx, "topic.change.perm.current", "Perm", p.Value)
	}
	switch p.Value {
	case "6", "4", "2":
		return T(ctx, "topic.change.perm."+p.Value)
	}
	return p.Label
}
