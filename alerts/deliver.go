package alerts

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"time"

	"rmqconsole/store"
)

// Deliveries returns the newest deliveries of every rule.
func (s *Service) Deliveries(ctx context.Context, limit int) ([]store.AlertDelivery, error) {
	return s.st.AlertDeliveries(ctx, 0, limit)
}

// Run sends due deliveries until ctx ends: at once when Evaluate wakes it, and every
// second for retries. Deliveries left pending by a stop are sent after the next start.
func (s *Service) Run(ctx context.Context) {
	client := &http.Client{Timeout: s.opts.Timeout}
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		s.sendDue(ctx, client)
		select {
		case <-ctx.Done():
			return
		case <-s.wake:
		case <-t.C:
		}
	}
}

func (s *Service) sendDue(ctx context.Context, client *http.Client) {
	due, err := s.st.DueDeliveries(ctx, s.opts.Now(), 20)
	if err != nil {
		if ctx.Err() == nil {
			s.opts.Log.Error("read alert deliveries", "err", err)
		}
		return
	}
	for _, d := range due {
		if ctx.Err() != nil {
			return
		}
		d = s.attempt(ctx, client, d)
		if err := s.st.UpdateDelivery(ctx, d); err != nil && ctx.Err() == nil {
			s.opts.Log.Error("record alert delivery", "delivery", d.ID, "err", err)
		}
	}
}

// attempt posts d once and returns it with the outcome: sent on a 2xx answer; else
// pending with the next try after Retry, 2×Retry, 4×Retry … and failed after
// MaxAttempts.
func (s *Service) attempt(ctx context.Context, client *http.Client, d store.AlertDelivery) store.AlertDelivery {
	d.Attempts++
	d.ResponseCode, d.Error = 0, ""
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, d.URL, bytes.NewReader([]byte(d.Body)))
	if err == nil {
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("User-Agent", "rmqconsole-alerts")
		var res *http.Response
		if res, err = client.Do(req); err == nil {
			_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, 64<<10))
			res.Body.Close()
			d.ResponseCode = res.StatusCode
			if res.StatusCode >= 200 && res.StatusCode < 300 {
				d.Status, d.NextAt = "sent", time.Time{}
				s.opts.Log.Info("alert delivered", "delivery", d.ID, "group", d.Group, "event", d.Event, "status", res.StatusCode)
				return d
			}
			err = fmt.Errorf("the webhook answered %s", res.Status)
		}
	}
	d.Error = err.Error()
	if d.Attempts >= s.opts.MaxAttempts {
		d.Status, d.NextAt = "failed", time.Time{}
		s.opts.Log.Warn("alert delivery failed", "delivery", d.ID, "attempts", d.Attempts, "err", err)
		return d
	}
	d.Status = "pending"
	d.NextAt = s.opts.Now().Add(s.opts.Retry << (d.Attempts - 1))
	s.opts.Log.Info("alert delivery will be retried", "delivery", d.ID, "attempt", d.Attempts, "next", d.NextAt, "err", err)
	return d
}
