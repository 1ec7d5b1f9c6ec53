package handlers

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"testing"

	"github.com/gin-gonic/gin"

	"rmqconsole/brokers"
	"rmqconsole/cluster"
	"rmqconsole/cluster/clustertest"
)

// failureShape is a broker failure as every API answer writes it.
type failureShape struct {
	Broker string `json:"broker"`
	Addr   string `json:"addr"`
	Topic  string `json:"topic"`
	Op     string `json:"op"`
	Error  string `json:"error"`
	Code   string `json:"code"`
}

// brokerWithFailure is one broker whose slave did not answer its configuration.
type brokerWithFailure struct{ fakeBrokers }

func (f *brokerWithFailure) Detail(ctx context.Context, name string) (*brokers.Detail, error) {
	d, err := f.fakeBrokers.Detail(ctx, name)
	if d != nil {
		d.Failures = []cluster.BrokerFailure{{Broker: name, Addr: "10.0.0.2:10911", Op: "config", Err: errors.New("connection refused")}}
	}
	return d, err
}

// The brokers, broker, cluster, configuration drift, topics and topic answers name the brokers that failed in
// "failures", in the one shape (broker, addr, topic, op, error, code), and keep the old
// "errors" beside it for the scripts that read it.
func TestAPIAnswersNameFailedBrokersInOneShape(t *testing.T) {
	gin.SetMode(gin.ReleaseMode)
	b := &brokerWithFailure{}
	br := gin.New()
	bh := &Brokers{Env: &Env{Log: slog.New(slog.DiscardHandler)}, Brokers: b}
	br.GET("/api/v1/brokers", bh.ListAPI)
	br.GET("/api/v1/brokers/:name", bh.ShowAPI)

	cf := clustertest.New()
	cf.SetNameServers("ns1:9876")
	cf.AddBroker("broker-a", "10.0.0.1:10911")
	cf.AddBroker("broker-b", "10.0.0.2:10911")
	cf.SetRuntime("10.0.0.1:10911", map[string]string{"brokerVersionDesc": "V5_3_3"})
	cf.Down("10.0.0.2:10911")
	home := gin.New()
	home.GET("/api/v1/cluster", (&Home{Env: &Env{Log: slog.New(slog.DiscardHandler)},
		Overview: func(ctx context.Context) (*brokers.Overview, error) {
			return brokers.New(cf, cluster.New(cf, cluster.Options{})).Overview(ctx)
		}}).API)

	bc := &BrokerConfig{Env: &Env{Log: slog.New(slog.DiscardHandler)}, Brokers: brokers.New(cf, cluster.New(cf, cluster.Options{}))}
	home.GET("/api/v1/brokers/config-drift", bc.DriftAPI)

	tr := topicsRouter(sampleTopics())
	for _, tc := range []struct {
		router     *gin.Engine
		path       string
		want       failureShape
		deprecated bool // the answer had "errors": [{broker, error}] before
	}{
		{br, "/api/v1/brokers", failureShape{Broker: "broker-a", Addr: "10.0.0.2:10911", Op: "runtime info",
			Error: "runtime info: i/o timeout", Code: "broker_error"}, true},
		{br, "/api/v1/brokers/broker-a", failureShape{Broker: "broker-a", Addr: "10.0.0.2:10911", Op: "config",
			Error: "config: connection refused", Code: "broker_error"}, true},
		{home, "/api/v1/cluster", failureShape{Broker: "broker-b", Addr: "10.0.0.2:10911", Op: "runtime info", Code: "broker_error"}, false},
		{home, "/api/v1/brokers/config-drift", failureShape{Broker: "broker-b", Addr: "10.0.0.2:10911", Op: "config", Code: "broker_error"}, false},
		{tr, "/api/v1/topics", failureShape{Broker: "broker-b", Addr: "10.0.0.2:10911", Op: "topic stats",
			Error: "topic stats: i/o timeout", Code: "broker_error"}, true},
		{tr, "/api/v1/topics/orders", failureShape{Broker: "broker-b", Addr: "10.0.0.2:10911", Op: "topic stats",
			Error: "topic stats: i/o timeout", Code: "broker_error"}, true},
	} {
		rec := msgGet(t, tc.router, tc.path)
		var j struct {
			Failures []failureShape `json:"failures"`
			Errors   []struct {
				Broker string `json:"broker"`
				Error  string `json:"error"`
			} `json:"errors"`
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &j); err != nil || rec.Code != 200 || len(j.Failures) != 1 {
			t.Errorf("%s: %d %v: %s", tc.path, rec.Code, err, rec.Body)
			continue
		}
		got := j.Failures[0]
		if tc.want.Error == "" { // the fake cluster's own words
			tc.want.Error = got.Error
		}
		if got != tc.want || got.Error == "" {
			t.Errorf("%s: failure %+v\nwant %+v", tc.path, got, tc.want)
		}
		if tc.deprecated && (len(j.Errors) != 1 || j.Errors[0].Broker != got.Broker || j.Errors[0].Error != got.Error) {
			t.Errorf("%s: the old errors %+v do not say the failure as before", tc.path, j.Errors)
		}
	}
}
