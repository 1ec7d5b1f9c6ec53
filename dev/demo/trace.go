package main

import (
	"flag"
	"os"

	"github.com/apache/rocketmq-client-go/v2/primitive"
)

// traceFlags are the -trace and -trace-topic flags of every mode: with -trace the
// clients record message traces (RIP-6), sent as messages to the trace topic, as a
// producer or consumer started with the client's trace option does in production.
type traceFlags struct {
	on    *bool
	topic *string
}

func addTraceFlags(fs *flag.FlagSet) traceFlags {
	return traceFlags{
		on:    fs.Bool("trace", false, "record message traces (the client's trace option)"),
		topic: fs.String("trace-topic", "", "the topic traces go to (default RMQ_SYS_TRACE_TOPIC)"),
	}
}

// config is the clients' trace configuration, nil without -trace.
func (f traceFlags) config(ns []string) *primitive.TraceConfig {
	if !*f.on {
		return nil
	}
	cfg := &primitive.TraceConfig{TraceTopic: *f.topic, NamesrvAddrs: ns}
	if cr, ok := credentials(); ok {
		cfg.Credentials = cr
	}
	return cfg
}

// credentials are the account to sign requests with on a cluster with ACL on, read
// from the console's own settings' names; ok is false without RMQC_ACCESS_KEY.
func credentials() (primitive.Credentials, bool) {
	ak := os.Getenv("RMQC_ACCESS_KEY")
	return primitive.Credentials{AccessKey: ak, SecretKey: os.Getenv("RMQC_SECRET_KEY")}, ak != ""
}
