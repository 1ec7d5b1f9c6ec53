package lookup

import (
	"fmt"
	"testing"
	"time"

	"rmqconsole/dev"
	"rmqconsole/rocketmq"
)

// A message sent by a gRPC producer (Apache's Go SDK, through the Proxy) is found by
// the id the SDK gave back (the 5.x v1 id, stored as UNIQ_KEY) and by its key, and its
// id decodes as a gRPC client's.
func TestIntegrationGRPCMessageFoundByIDAndKey(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the local RocketMQ and its Proxy")
	}
	dev.RequireProxy(t)
	e := newIT(t)
	topic := e.topic(t, "lk-grpc", 2)
	ctx := ctxT(t)
	sent, err := dev.GRPCSend(ctx, e.cl, topic, 1, "grpc-key")
	if err != nil {
		t.Fatal(err)
	}
	id := sent[0].MessageID
	var r *IDResult
	dev.Eventually(t, 30*time.Second, "find the gRPC message by its id", func() error {
		r, err = e.svc.ByID(ctx, IDQuery{ID: id, Topic: topic})
		return err
	})
	if r.Kind != rocketmq.IDUniqueKey || r.Message.UniqueKey() != id || r.Message.Topic != topic {
		t.Errorf("by v1 id: kind %v, unique key %s, topic %s", r.Kind, r.Message.UniqueKey(), r.Message.Topic)
	}
	if info, err := rocketmq.ParseUniqueKey(id); err != nil || info.Client != "grpc" {
		t.Errorf("ParseUniqueKey(%s) = %+v, %v; want a gRPC client's id", id, info, err)
	} else if d := time.Since(info.BornApprox); d < -time.Minute || d > 10*time.Minute {
		t.Errorf("born time of %s decoded as %s, %s from now", id, info.BornApprox, d)
	}
	dev.Eventually(t, 30*time.Second, "find the gRPC message by its key", func() error {
		res, err := e.svc.ByKey(ctx, KeyQuery{Topic: topic, Key: "grpc-key"})
		if err != nil {
			return err
		}
		if len(res.Messages) != 1 || res.Messages[0].UniqueKey() != id {
			return fmt.Errorf("by key: %d messages", len(res.Messages))
		}
		return nil
	})
}
