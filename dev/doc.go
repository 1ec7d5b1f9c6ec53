// Package dev runs a real Apache RocketMQ (NameServer + Broker) on loopback for
// development and tests.
//
// The jars come from Maven Central (org.apache.rocketmq:rocketmq-namesrv and
// rocketmq-broker at a pinned version, 5.3.3 unless RMQ_VERSION names another, e.g. 4.9.7) and
// are cached under <repo>/.cache/rocketmq/<version>/lib (RMQ_CACHE overrides
// <repo>/.cache/rocketmq). The cluster listens on fixed ports:
//
//	NameServer  127.0.0.1:19876
//	broker-a    127.0.0.1:20911 (also 20909 and 20912)
//	broker-b    127.0.0.1:21911 (also 21909 and 21912), with Options.SecondBroker
//
// Options.Ports moves a cluster to other ports (PortsFrom, FreePorts), so a
// private cluster can run beside the shared one.
//
// Tests share one cluster per test binary through RunTests and RequireCluster,
// or one cluster across all packages when RMQC_TEST_NAMESRV names a running
// NameServer (see docs/running-rocketmq.md). Tests that freeze, kill or
// restart a broker (Cluster.Freeze, KillBroker, RestartBroker) use
// RequirePrivateCluster: two brokers on free ports, one per test binary.
package dev
