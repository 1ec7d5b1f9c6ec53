package views

import "context"

// The consumer group pages' words for the values RocketMQ reports as codes: each known
// code is said in the request's language, anything else is shown as reported.

// ConsumeTypeText is a consume type label (groups.ConsumeTypeLabel) in words.
func ConsumeTypeText(ctx context.Context, label string) string {
	switch label {
	case "gRPC push":
		return T(ctx, "group.type.grpcPush")
	case "push":
		return T(ctx, "group.type.push")
	case "pull":
		return T(ctx, "group.type.pull")
	}
	return label
}

// MessageModelText is a message model (CLUSTERING, BROADCASTING) in words.
func MessageModelText(ctx context.Context, model string) string {
	switch model {
	case "CLUSTERING":
		return T(ctx, "group.model.clustering")
	case "BROADCASTING":
		return T(ctx, "group.model.broadcasting")
	}
	return model
}

// ConsumeModeText is a consume mode (orderly, concurrent, mixed) in words.
func ConsumeModeText(ctx context.Context, mode string) string {
	return codeText(ctx, "group.mode.", mode)
}

// KnownToText says who listed a client: a broker, or a Proxy named in the value.
func KnownToText(ctx context.Context, knownTo string) string {
	if knownTo == "broker" {
		return T(ctx, "group.knownTo.broker")
	}
	return knownTo
}

// TrendText is a trend direction (growing, shrinking, steady, unknown) in words.
func TrendText(ctx context.Context, direction string) string {
	return codeText(ctx, "group.trend.", direction)
}

// A command the group pages quote: code, the same in every language (the others they
// quote are with the rest in i18n_ops.go).
const codeUpdateSubGroup = "mqadmin updateSubGroup"
