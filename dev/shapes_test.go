package dev

import (
	"strings"
	"testing"
)

func props(kv [][2]string) map[string]string {
	m := map[string]string{}
	for _, p := range kv {
		m[p[0]] = p[1]
	}
	return m
}

// Slaves get their own ports, disjoint from every other process's, brokerId 1 and
// the SLAVE role under their master's name; a port set without slave ports refuses.
func TestSlavesHaveTheirOwnPortsAndRole(t *testing.T) {
	specs, err := withSlaves(DefaultPorts, brokerSpecs(DefaultPorts, true))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int]string{NameServerPort: "namesrv"}
	var slaves []string
	for _, b := range specs {
		for _, port := range b.ports() {
			if other, dup := seen[port]; dup {
				t.Errorf("port %d used by %s and %s", port, other, b.proc())
			}
			seen[port] = b.proc()
		}
		p := props(brokerProperties("5.3.3", b, "/store", "127.0.0.1:19876"))
		if b.id == 1 {
			slaves = append(slaves, b.proc())
			if p["brokerId"] != "1" || p["brokerRole"] != "SLAVE" || p["brokerName"] != b.name {
				t.Errorf("slave %s: brokerId %s role %s name %s", b.proc(), p["brokerId"], p["brokerRole"], p["brokerName"])
			}
		} else if p["brokerId"] != "0" || p["brokerRole"] != "ASYNC_MASTER" {
			t.Errorf("master %s: brokerId %s role %s", b.proc(), p["brokerId"], p["brokerRole"])
		}
	}
	if strings.Join(slaves, ",") != "broker-a-s,broker-b-s" {
		t.Errorf("slaves %v", slaves)
	}
	if _, err := withSlaves(Ports{NameServer: 1, BrokerA: 4}, brokerSpecs(Ports{NameServer: 1, BrokerA: 4}, false)); err == nil {
		t.Error("a port set without slave ports, yet slaves were laid out")
	}
}

// 4.x turns plain ACL on (the accounts are in plain_acl.yml); 5.x turns on ACL 2.0
// authentication and authorization with the admin as the first user.
func TestACLBrokerProperties(t *testing.T) {
	if p := props(aclBrokerProperties("4.9.7")); p["aclEnable"] != "true" || len(p) != 1 {
		t.Errorf("4.9.7: %v", p)
	}
	p := props(aclBrokerProperties("5.3.3"))
	if p["authenticationEnabled"] != "true" || p["authorizationEnabled"] != "true" ||
		!strings.Contains(p["initAuthenticationUser"], `"username":"`+AdminAccount.AccessKey+`"`) ||
		!strings.Contains(p["innerClientAuthenticationCredentials"], `"accessKey":"`+AdminAccount.AccessKey+`"`) {
		t.Errorf("5.3.3: %v", p)
	}
}

// 5.5.1 is on Maven Central only in part: the POM pins the missing modules to 5.5.0
// and runs NameServer and mqadmin 5.5.0; other releases pin nothing.
func TestPartlyPublishedReleasePinsMissingModules(t *testing.T) {
	if v := nameServerVersion("5.5.1"); v != "5.5.0" {
		t.Errorf("NameServer of 5.5.1: %s", v)
	}
	if v := nameServerVersion("5.3.3"); v != "5.3.3" {
		t.Errorf("NameServer of 5.3.3: %s", v)
	}
	pins := pinnedModules("5.5.1")
	for _, a := range []string{"rocketmq-client", "rocketmq-srvutil", "rocketmq-filter", "rocketmq-auth"} {
		if !strings.Contains(pins, "<artifactId>"+a+"</artifactId><version>5.5.0</version>") {
			t.Errorf("%s not pinned to 5.5.0:\n%s", a, pins)
		}
	}
	if pinnedModules("5.3.3") != "" || pinnedModules("4.9.7") != "" {
		t.Error("fully published releases pin modules")
	}
}
