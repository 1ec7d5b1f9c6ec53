package main

import (
	"path/filepath"
	"slices"
	"testing"

	"rmqconsole/dev"
)

// --port-base N (or =N) before the command moves the cluster onto that port set,
// in a run dir of its own; without it the default set and run dir stay.
func TestPortBaseOptionMovesPortsAndRunDir(t *testing.T) {
	t.Setenv("RMQ_CACHE", t.TempDir())
	t.Setenv(dev.PortBaseEnv, "")
	args, err := portBaseOption([]string{"status"})
	if err != nil || !slices.Equal(args, []string{"status"}) || ports() != dev.DefaultPorts {
		t.Fatalf("no option: args %v, err %v, ports %+v", args, err, ports())
	}
	if dir, _ := runDir("5.3.3"); filepath.Base(dir) != "run-5.3.3" {
		t.Errorf("default run dir %s", dir)
	}
	for _, argv := range [][]string{{"--port-base", "17000", "down"}, {"--port-base=17000", "down"}} {
		t.Setenv(dev.PortBaseEnv, "")
		args, err := portBaseOption(argv)
		if err != nil || !slices.Equal(args, []string{"down"}) {
			t.Fatalf("%v: args %v, err %v", argv, args, err)
		}
		if ports() != dev.PortsFrom(17000) || ports().NameServerAddr() != "127.0.0.1:17000" {
			t.Errorf("%v: ports %+v", argv, ports())
		}
		if dir, _ := runDir("4.9.7"); filepath.Base(dir) != "run-4.9.7-ports17000" {
			t.Errorf("%v: run dir %s", argv, dir)
		}
	}
	if _, err := portBaseOption([]string{"--port-base"}); err == nil {
		t.Error("--port-base without a number accepted")
	}
}
