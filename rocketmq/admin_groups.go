package rocketmq

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// UpdateSubscriptionGroup creates or updates a subscription group on the broker at addr
// (UPDATE_AND_CREATE_SUBSCRIPTIONGROUP), as mqadmin updateSubGroup does. A zero
// RetryMaxTimes or RetryQueueNums takes the broker's usual 16 and 1.
func (c *Client) UpdateSubscriptionGroup(ctx context.Context, addr string, cfg SubscriptionGroupConfig) error {
	if cfg.RetryMaxTimes == 0 {
		cfg.RetryMaxTimes = 16
	}
	if cfg.RetryQueueNums == 0 {
		cfg.RetryQueueNums = 1
	}
	body, err := json.Marshal(cfg)
	if err != nil {
		return fmt.Errorf("update subscription group %q on %s: %w", cfg.GroupName, addr, err)
	}
	if _, err := c.call(ctx, addr, CodeUpdateSubscriptionGroup, nil, body); err != nil {
		return fmt.Errorf("update subscription group %q on %s: %w", cfg.GroupName, addr, err)
	}
	return nil
}

// GroupDoc is a subscription group's configuration as a broker wrote it, field by field,
// fields this package has no name for included. Sending a changed GroupDoc back keeps
// every field the change did not name, whatever the broker's version.
type GroupDoc map[string]json.RawMessage

// Name is the group's name (groupName).
func (d GroupDoc) Name() string {
	var s string
	_ = json.Unmarshal(d["groupName"], &s)
	return s
}

// Fields lists the document's field names, sorted.
func (d GroupDoc) Fields() []string {
	out := make([]string, 0, len(d))
	for k := range d {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// Clone returns a copy that can be changed without changing d.
func (d GroupDoc) Clone() GroupDoc {
	out := make(GroupDoc, len(d))
	for k, v := range d {
		out[k] = slices.Clone(v)
	}
	return out
}

// GroupDocs returns every subscription group on the broker at addr as the broker wrote
// it (GET_ALL_SUBSCRIPTIONGROUP_CONFIG), by name. It is a pure read: unlike
// GET_SUBSCRIPTIONGROUP_CONFIG (352), which a 5.x broker with autoCreateSubscriptionGroup
// on answers by creating the group it was asked about, and which 4.x lacks.
func (c *Client) GroupDocs(ctx context.Context, addr string) (map[string]GroupDoc, error) {
	resp, err := c.call(ctx, addr, CodeGetAllSubscriptionGroup, nil, nil)
	if err != nil {
		return nil, fmt.Errorf("subscription groups on %s: %w", addr, err)
	}
	var t struct {
		Groups map[string]GroupDoc `json:"subscriptionGroupTable"`
	}
	if err := decodeBody(resp.Body, &t); err != nil {
		return nil, fmt.Errorf("subscription groups on %s: %w", addr, err)
	}
	if t.Groups == nil {
		t.Groups = map[string]GroupDoc{}
	}
	return t.Groups, nil
}

// PutGroupDoc creates or replaces a subscription group on the broker at addr
// (UPDATE_AND_CREATE_SUBSCRIPTIONGROUP) with exactly doc. A 5.x broker merges the
// "attributes" it is sent into the group's ("+key" adds or changes, "-key" removes).
func (c *Client) PutGroupDoc(ctx context.Context, addr string, doc GroupDoc) error {
	name := doc.Name()
	if name == "" {
		return fmt.Errorf("update subscription group on %s: the configuration has no groupName", addr)
	}
	body, err := json.Marshal(doc)
	if err != nil {
		return fmt.Errorf("update subscription group %q on %s: %w", name, addr, err)
	}
	if _, err := c.call(ctx, addr, CodeUpdateSubscriptionGroup, nil, body); err != nil {
		return fmt.Errorf("update subscription group %q on %s: %w", name, addr, err)
	}
	return nil
}

// DeleteSubscriptionGroup deletes a subscription group's configuration on the broker at
// addr (DELETE_SUBSCRIPTIONGROUP). With removeOffsets the broker also drops the group's
// committed offsets (4.x names the header field removeOffset, 5.x cleanOffset; both are
// sent, each broker reads its own). Its retry and dead-letter topics are not touched.
func (c *Client) DeleteSubscriptionGroup(ctx context.Context, addr, group string, removeOffsets bool) error {
	ext := map[string]string{"groupName": group, "removeOffset": btoa(removeOffsets), "cleanOffset": btoa(removeOffsets)}
	if _, err := c.call(ctx, addr, CodeDeleteSubscriptionGroup, ext, nil); err != nil {
		return fmt.Errorf("delete subscription group %q on %s: %w", group, addr, err)
	}
	return nil
}

// propertiesText writes kv as java.util.Properties text that Properties.load reads back
// exactly: the broker reads UPDATE_BROKER_CONFIG's body that way, as ISO-8859-1, so
// separators, backslashes, line breaks and every non-ASCII character are escaped.
func propertiesText(kv map[string]string) []byte {
	keys := make([]string, 0, len(kv))
	for k := range kv {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b strings.Builder
	for _, k := range keys {
		writeProperty(&b, k, true)
		b.WriteByte('=')
		writeProperty(&b, kv[k], false)
		b.WriteByte('\n')
	}
	return []byte(b.String())
}

func writeProperty(b *strings.Builder, s string, key bool) {
	for i, r := range s {
		switch {
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\f':
			b.WriteString(`\f`)
		case r == ' ' && (key || i == 0):
			b.WriteString(`\ `)
		case key && (r == '=' || r == ':'), (key || i == 0) && (r == '#' || r == '!'):
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r > 0x7e:
			if r > 0xffff {
				for _, u := range utf16Pair(r) {
					fmt.Fprintf(b, `\u%04x`, u)
				}
				continue
			}
			fmt.Fprintf(b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
}

func utf16Pair(r rune) [2]rune {
	r -= 0x10000
	return [2]rune{0xd800 + (r>>10)&0x3ff, 0xdc00 + r&0x3ff}
}

// UpdateBrokerConfig changes configuration keys of the broker process at addr
// (UPDATE_BROKER_CONFIG) while it runs; the broker also writes them to its config file.
// A broker ignores a key it does not have, and one whose value does not parse as the
// key's type, without saying so: read the configuration back to know what changed.
// A 5.x broker refuses every key of its configBlackList with NO_PERMISSION.
func (c *Client) UpdateBrokerConfig(ctx context.Context, addr string, kv map[string]string) error {
	if len(kv) == 0 {
		return nil
	}
	if _, err := c.call(ctx, addr, CodeUpdateBrokerConfig, nil, propertiesText(kv)); err != nil {
		return fmt.Errorf("update config of broker %s: %w", addr, err)
	}
	return nil
}
