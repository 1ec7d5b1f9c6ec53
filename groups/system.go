package groups

import "strings"

// systemGroups are the groups brokers create for themselves and RocketMQ's tools
// (MixAll's predefined groups); operators rarely want them in the list.
var systemGroups = map[string]bool{
	"DEFAULT_CONSUMER":      true,
	"DEFAULT_PRODUCER":      true,
	"TOOLS_CONSUMER":        true,
	"SCHEDULE_CONSUMER":     true,
	"FILTERSRV_CONSUMER":    true,
	"__MONITOR_CONSUMER":    true,
	"CLIENT_INNER_PRODUCER": true,
	"SELF_TEST_P_GROUP":     true,
	"SELF_TEST_C_GROUP":     true,
	"CID_ONS-HTTP-PROXY":    true,
	"CID_ONSAPI_PERMISSION": true,
	"CID_ONSAPI_OWNER":      true,
	"CID_ONSAPI_PULL":       true,
}

// IsSystemGroup reports whether a consumer group is RocketMQ's own rather than an
// application's: the predefined groups and the CID_RMQ_SYS_ family.
func IsSystemGroup(group string) bool {
	return systemGroups[group] || strings.HasPrefix(group, "CID_RMQ_SYS_") || strings.HasPrefix(group, "CID_SYS_RMQ_")
}

// ValidGroupName reports whether name is a group name RocketMQ accepts (letters, digits,
// '%', '|', '-', '_'; at most 255 characters), so bad input never reaches a broker.
func ValidGroupName(name string) bool {
	if name == "" || len(name) > 255 {
		return false
	}
	for _, r := range name {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '%', r == '|', r == '-', r == '_':
		default:
			return false
		}
	}
	return true
}
