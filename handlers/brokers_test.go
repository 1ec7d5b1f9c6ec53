package handlers

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gin-gonic/gin"

	"rmqconsole/brokers"
	"rmqconsole/cluster"
	"rmqconsole/diagnosis"
	"rmqconsole/i18n"
)

type fakeBrokers struct {
	calls int
	// afresh records, per List call, whether it asked for a fresh read.
	afresh []bool
	// list, when set, is the list answered.
	list *brokers.List
}

var sampleRuntime = brokers.Runtime{Cluster: "DefaultCluster", Name: "broker-a", Addr: "10.0.0.1:10911", Role: "master", Version: "5.3.3",
	PutTPS: 12.5, CommitLogMaxOffset: 123456, DiskRatio: 0.42, StartedAt: time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC).UnixMilli()}

func (f *fakeBrokers) List(_ context.Context, refresh bool) (*brokers.List, error) {
	f.calls++
	f.afresh = append(f.afresh, refresh)
	if f.list != nil {
		return f.list, nil
	}
	slave := brokers.Runtime{Cluster: "DefaultCluster", Name: "broker-a", ID: 1, Addr: "10.0.0.2:10911", Role: "slave", Error: "i/o timeout"}
	return &brokers.List{Brokers: []brokers.Runtime{sampleRuntime, slave}, CheckedAt: time.Now(),
		Failures: []cluster.BrokerFailure{{Broker: "broker-a", Addr: slave.Addr, Op: "runtime info", Err: errors.New("i/o timeout")}}}, nil
}

func (f *fakeBrokers) Detail(_ context.Context, name string) (*brokers.Detail, error) {
	f.calls++
	if name != "broker-a" {
		return nil, brokers.NotFound(name, nil)
	}
	return &brokers.Detail{Name: name, Cluster: "DefaultCluster", CheckedAt: time.Now(), Members: []brokers.Member{{Runtime: sampleRuntime,
		Config: []brokers.ConfigEntry{{Key: "brokerName", Value: "broker-a"}, {Key: "secretKey", Value: brokers.MaskedValue, Masked: true}}}}}, nil
}

func brokersRouter(f *fakeBrokers) *gin.Engine {
	gin.SetMode(gin.ReleaseMode)
	r := newEngine()
	h := &Brokers{Env: &Env{Log: slog.New(slog.DiscardHandler)}, Brokers: f}
	r.GET("/brokers", h.List)
	r.GET("/brokers/:name", h.Show)
	r.GET("/api/v1/brokers", h.ListAPI)
	r.GET("/api/v1/brokers/:name", h.ShowAPI)
	return r
}

// The list shows masters and slaves, names the one that did not answer, and links each
// broker to its page; the page shows the configuration with secrets masked.
func TestBrokersPagesAndAPI(t *testing.T) {
	f := &fakeBrokers{}
	r := brokersRouter(f)
	doc := msgDoc(t, msgGet(t, r, "/brokers"))
	if n := doc.Find(`[data-testid="brokers-table"] tbody tr`).Length(); n != 2 {
		t.Errorf("%d rows, want master and slave", n)
	}
	if doc.Find(`tr[data-addr="10.0.0.1:10911"] a[href="/brokers/broker-a"]`).Length() != 1 {
		t.Errorf("no link to the broker page")
	}
	if !strings.Contains(doc.Find(`tr[data-addr="10.0.0.2:10911"] [data-testid="broker-error"]`).Text(), "timeout") ||
		!strings.Contains(doc.Find(`[data-testid="brokers-failure"]`).Text(), "10.0.0.2:10911") {
		t.Errorf("the silent slave is not named")
	}
	rec := msgGet(t, r, "/api/v1/brokers")
	var j BrokersJSON
	if err := json.Unmarshal(rec.Body.Bytes(), &j); err != nil || len(j.Brokers) != 2 || j.Brokers[0].CommitLogMaxOffset != 123456 || len(j.Errors) != 1 {
		t.Errorf("API: %d %s", rec.Code, rec.Body.String())
	}
	page := msgGet(t, r, "/brokers/broker-a")
	doc = msgDoc(t, page)
	if got := doc.Find(`tr[data-key="secretKey"] [data-testid="config-value"]`).Text(); strings.TrimSpace(got) != brokers.MaskedValue {
		t.Errorf("secret shown as %q", got)
	}
	if got := doc.Find(`tr[data-key="brokerName"] [data-testid="config-value"]`).Text(); strings.TrimSpace(got) != "broker-a" {
		t.Errorf("brokerName shown as %q", got)
	}
	if got := doc.Find(`[data-testid="broker-commitlog"]`).Text(); got != "0 – 123,456" {
		t.Errorf("commit log %q", got)
	}
}

// A bad broker name is refused before any broker is asked; an unknown one is a 404.
func TestBrokersBadInput(t *testing.T) {
	f := &fakeBrokers{}
	r := brokersRouter(f)
	for _, p := range []string{"/brokers/bad%20name", "/api/v1/brokers/bad%20name"} {
		if rec := msgGet(t, r, p); rec.Code != http.StatusBadRequest || !strings.Contains(rec.Body.String(), "not a broker name") {
			t.Errorf("%s: %d", p, rec.Code)
		}
	}
	if f.calls != 0 {
		t.Errorf("bad names reached the service")
	}
	for _, p := range []string{"/brokers/broker-z", "/api/v1/brokers/broker-z"} {
		if rec := msgGet(t, r, p); rec.Code != http.StatusNotFound || !strings.Contains(rec.Body.String(), "No broker named broker-z") {
			t.Errorf("%s: %d %s", p, rec.Code, rec.Body.String())
		}
	}
}

// A broker's page has a Diagnosis section with what is wrong with that broker now: the
// finding's kind and evidence, without a link back to the page itself.
func TestBrokerPageShowsItsFindings(t *testing.T) {
	r := newEngine()
	fs := findingsOf{{Kind: diagnosis.KindDiskFull, Severity: diagnosis.Critical, Subject: "broker-a", Broker: "broker-a", Addr: "10.0.0.1:10911",
		Evidence: i18n.M("diagnosis.evidence.diskFull", "Addr", "10.0.0.1:10911", "Role", "master", "Used", "91.0%", "Max", "85.0%"),
		Action:   "/brokers/broker-a", ActionKind: "broker"}}
	h := &Brokers{Env: &Env{Log: slog.New(slog.DiscardHandler)}, Brokers: &fakeBrokers{}, Diagnosis: fs}
	r.GET("/brokers/:name", h.Show)
	doc := msgDoc(t, msgGet(t, r, "/brokers/broker-a"))
	f := doc.Find(`[data-testid="broker-diagnosis"] [data-testid="finding"][data-kind="brokerDiskFull"][data-broker="broker-a"]`)
	if f.Length() != 1 || !strings.Contains(f.Text(), "91.0% used") {
		t.Fatalf("broker page's findings: %q", doc.Find(`[data-testid="broker-diagnosis"]`).Text())
	}
	if f.Find(`a[href="/brokers/broker-a"]`).Length() != 0 {
		t.Errorf("the finding links back to its own page")
	}
}
