package server

import (
	"net/url"
	"time"
)

// auditStreamSettings say where the audit log is streamed as it is written (README
// "Streaming the audit log").
var auditStreamSettings = []setting{
	{"audit-stream-topic", "RMQC_AUDIT_STREAM_TOPIC", ""},
	{"audit-stream-cluster", "RMQC_AUDIT_STREAM_CLUSTER", ""},
	{"audit-stream-webhook", "RMQC_AUDIT_STREAM_WEBHOOK", ""},
	{"audit-stream-webhook-token-file", "RMQC_AUDIT_STREAM_WEBHOOK_TOKEN_FILE", ""},
	{"audit-stream-poll", "RMQC_AUDIT_STREAM_POLL", "1s"},
	{"audit-stream-retry", "RMQC_AUDIT_STREAM_RETRY", "1s"},
}

func init() { settings = append(settings, auditStreamSettings...) }

// AuditStreamConfig is where the audit log is streamed; nil in Config when nowhere.
type AuditStreamConfig struct {
	// Topic, when set, receives every entry as a message on the cluster named Cluster.
	Topic, Cluster string
	// Webhook, when set, receives every entry in a POST; Token is sent as a bearer token.
	Webhook, Token string
	// Poll is how often the log is read for new entries; Retry the first wait after a
	// failed delivery (it doubles, up to a minute).
	Poll, Retry time.Duration
}

// parseAuditStream reads the audit stream's settings, after the clusters: the topic's
// cluster must be one of them.
func parseAuditStream(c *Config, v settingValues) error {
	s := &AuditStreamConfig{Topic: v.get("audit-stream-topic"), Cluster: v.get("audit-stream-cluster"), Webhook: v.get("audit-stream-webhook")}
	var err error
	if s.Poll, err = v.duration("audit-stream-poll", 10*time.Millisecond, false, "cli.config.reason.duration"); err != nil {
		return err
	}
	if s.Retry, err = v.duration("audit-stream-retry", 10*time.Millisecond, false, "cli.config.reason.duration"); err != nil {
		return err
	}
	if s.Webhook == "" && v.get("audit-stream-webhook-token-file") != "" {
		return v.bad("audit-stream-webhook-token-file", "cli.config.reason.audit_stream_no_webhook")
	}
	if s.Topic == "" && s.Webhook == "" {
		if s.Cluster != "" {
			return v.bad("audit-stream-cluster", "cli.config.reason.audit_stream_no_topic")
		}
		return nil
	}
	if s.Topic != "" {
		if s.Cluster == "" {
			s.Cluster = c.DefaultCluster().Name
		}
		cc := c.clusterNamed(s.Cluster)
		if cc == nil {
			return v.bad("audit-stream-cluster", "cli.config.reason.audit_stream_cluster", "Cluster", s.Cluster)
		}
		if len(cc.NameServers) == 0 {
			return v.bad("audit-stream-topic", "cli.config.reason.audit_stream_no_namesrv", "Cluster", s.Cluster)
		}
	}
	if s.Webhook != "" {
		if u, err := url.Parse(s.Webhook); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return v.bad("audit-stream-webhook", "cli.config.reason.audit_stream_webhook")
		}
		if s.Token, err = secretFile(v.get, v.refusePlain, "audit-stream-webhook-token-file"); err != nil {
			return err
		}
	}
	c.AuditStream = s
	return nil
}

// clusterNamed is the configured cluster of that name, nil when none is.
func (c *Config) clusterNamed(name string) *ClusterConfig {
	for i := range c.Clusters {
		if c.Clusters[i].Name == name {
			return &c.Clusters[i]
		}
	}
	return nil
}
