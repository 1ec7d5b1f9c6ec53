package dev

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// brokerSpec is one broker of the local cluster.
type brokerSpec struct {
	name string
	port int // main remoting port; the broker also takes port-2 (fast) and port+1 (HA)
	id   int // 0 for the master, 1 for its slave
}

// proc names the broker's process and home dir: the broker name for a master,
// the name plus "-s" for its slave ("broker-a-s").
func (b brokerSpec) proc() string {
	if b.id == 0 {
		return b.name
	}
	return b.name + "-s"
}

func (b brokerSpec) addr() string { return fmt.Sprintf("%s:%d", Host, b.port) }

// ports lists every port the broker opens, so all can be checked before start.
func (b brokerSpec) ports() []int { return []int{b.port - 2, b.port, b.port + 1} }

func brokerSpecs(ports Ports, second bool) []brokerSpec {
	ports = ports.orDefault()
	specs := []brokerSpec{{name: "broker-a", port: ports.BrokerA}}
	if second {
		specs = append(specs, brokerSpec{name: "broker-b", port: ports.BrokerB})
	}
	return specs
}

// withSlaves adds a slave (brokerId 1) of each master, on the slave ports.
func withSlaves(ports Ports, masters []brokerSpec) ([]brokerSpec, error) {
	ports = ports.orDefault()
	slavePort := map[string]int{"broker-a": ports.BrokerASlave, "broker-b": ports.BrokerBSlave}
	specs := append([]brokerSpec{}, masters...)
	for _, m := range masters {
		if slavePort[m.name] == 0 {
			return nil, fmt.Errorf("no port for the slave of %s (only DefaultPorts have slave ports)", m.name)
		}
		specs = append(specs, brokerSpec{name: m.name, port: slavePort[m.name], id: 1})
	}
	return specs, nil
}

// writeProperties writes key=value lines. RocketMQ silently ignores misspelt
// keys and values with trailing spaces or comments, so no comments go here.
func writeProperties(path string, kv [][2]string) error {
	var b strings.Builder
	for _, p := range kv {
		fmt.Fprintf(&b, "%s=%s\n", p[0], p[1])
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

func namesrvProperties(version, home string, port int) [][2]string {
	kv := [][2]string{
		{"listenPort", fmt.Sprint(port)},
		{"kvConfigPath", filepath.Join(home, "kvConfig.json")},
	}
	if !is4x(version) { // 4.x has no bindAddress and binds every interface
		kv = append(kv, [2]string{"bindAddress", Host})
	}
	return kv
}

func brokerProperties(version string, b brokerSpec, store, nameServer string) [][2]string {
	kv := [][2]string{
		{"brokerClusterName", ClusterName},
		{"brokerName", b.name},
		{"brokerId", fmt.Sprint(b.id)},
		{"brokerRole", role(b)},
		{"flushDiskType", "ASYNC_FLUSH"},
		{"namesrvAddr", nameServer},
		// Set explicitly: the default is the first non-loopback address.
		{"brokerIP1", Host},
		{"listenPort", fmt.Sprint(b.port)},
		{"storePathRootDir", store},
		{"storePathCommitLog", filepath.Join(store, "commitlog")},
		{"autoCreateTopicEnable", "true"},
		{"autoCreateSubscriptionGroup", "true"},
		{"enablePropertyFilter", "true"},
		// Creates RMQ_SYS_TRACE_TOPIC (one queue), where clients with tracing on send
		// their message traces; off by default in RocketMQ.
		{"traceTopicEnable", "true"},
		// Small store files: defaults are a 1 GiB commitlog and a ~420 MB index file.
		{"mappedFileSizeCommitLog", "67108864"},
		{"mappedFileSizeConsumeQueue", "600000"},
		{"maxHashSlotNum", "50000"},
		{"maxIndexNum", "200000"},
		{"diskMaxUsedSpaceRatio", "95"},
		{"deleteWhen", "04"},
		{"fileReservedTime", "48"},
		// Tolerate a slow 2-core machine instead of answering "broker busy".
		{"waitTimeMillsInSendQueue", "1000"},
		{"osPageCacheBusyTimeOutMills", "3000"},
	}
	if !is4x(version) {
		kv = append(kv, [2]string{"bindAddress", Host})
	}
	return kv
}

// logbackXML is the 4.x logging config: 4.x reads $ROCKETMQ_HOME/conf/logback_*.xml
// and exits (servers) or silently does nothing (mqadmin) when the file is missing.
// The console loggers carry the start-up lines we wait for, so they go to stdout.
const logbackXML = `<configuration>
  <appender name="FILE" class="ch.qos.logback.core.FileAppender">
    <file>${user.home}/logs/rocketmqlogs/%s.log</file>
    <encoder><pattern>%%d{yyyy-MM-dd HH:mm:ss.SSS} %%p %%t %%c - %%m%%n</pattern></encoder>
  </appender>
  <appender name="STDOUT" class="ch.qos.logback.core.ConsoleAppender">
    <encoder><pattern>%%d{HH:mm:ss.SSS} %%p %%t - %%m%%n</pattern></encoder>
  </appender>
  <logger name="RocketmqConsole" additivity="false" level="INFO"><appender-ref ref="STDOUT"/></logger>
  <logger name="RocketmqNamesrvConsole" additivity="false" level="INFO"><appender-ref ref="STDOUT"/></logger>
  <root level="INFO"><appender-ref ref="FILE"/></root>
</configuration>
`

// writeRocketMQHome prepares a ROCKETMQ_HOME: 5.x only needs it to exist,
// 4.x needs conf/logback_{namesrv,broker,tools}.xml in it.
func writeRocketMQHome(home string) error {
	conf := filepath.Join(home, "conf")
	if err := os.MkdirAll(conf, 0o755); err != nil {
		return fmt.Errorf("prepare ROCKETMQ_HOME %s: %w", home, err)
	}
	for _, name := range []string{"namesrv", "broker", "tools"} {
		path := filepath.Join(conf, "logback_"+name+".xml")
		if err := replaceFile(path, fmt.Appendf(nil, logbackXML, name)); err != nil {
			return fmt.Errorf("prepare ROCKETMQ_HOME: %w", err)
		}
	}
	return nil
}

// jdkOpens opens what 4.x's MappedFile.clean() reflects into (unmapping on
// shutdown and file deletion); harmless on 5.x, which no longer needs it.
var jdkOpens = []string{
	"--add-opens=java.base/java.nio=ALL-UNNAMED",
	"--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
	"--add-opens=java.base/jdk.internal.ref=ALL-UNNAMED",
	"--add-opens=java.base/java.lang=ALL-UNNAMED",
}

// javaArgs builds a JVM command line. logback names the 5.x built-in config
// resource (ignored on 4.x, which reads ROCKETMQ_HOME/conf instead).
func javaArgs(version, lib, userHome, logback string, heap []string, main string, args ...string) []string {
	a := []string{"-server"}
	a = append(a, heap...)
	a = append(a, "-XX:-OmitStackTraceInFastThrow", "-Djava.net.preferIPv4Stack=true")
	a = append(a, jdkOpens...)
	a = append(a, "-Duser.home="+userHome)
	if !is4x(version) {
		// 5.x otherwise takes the first rmq.*.logback.xml on the classpath: the broker's.
		a = append(a, "-Drmq.logback.configurationFile="+logback)
	}
	a = append(a, "-cp", filepath.Join(lib, "*"), main)
	return append(a, args...)
}

func role(b brokerSpec) string {
	if b.id == 0 {
		return "ASYNC_MASTER"
	}
	return "SLAVE"
}
