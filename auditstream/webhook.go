package auditstream

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	"rmqconsole/freetext"
)

// Webhook posts records to a URL as {"records":[...]}, in chain order; any 2xx answer
// takes them all, anything else (or no answer) has them sent again.
type Webhook struct {
	URL string
	// Token, when set, is sent as "Authorization: Bearer <token>".
	Token string
	// Client sends the requests; nil uses one with a 10 s timeout.
	Client *http.Client
}

// webhookTimeout bounds one delivery when the Webhook has no client of its own.
const webhookTimeout = 10 * time.Second

// Name is the cursor's name: the URL's, so pointing the stream elsewhere starts over.
func (w *Webhook) Name() string { return "webhook " + w.URL }

// Deliver posts recs in one request.
func (w *Webhook) Deliver(ctx context.Context, recs []Record) error {
	body, err := json.Marshal(struct {
		Records []Record `json:"records"`
	}{recs})
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, w.URL, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Audit-First-Seq", strconv.FormatInt(recs[0].Seq, 10))
	req.Header.Set("X-Audit-Last-Seq", strconv.FormatInt(recs[len(recs)-1].Seq, 10))
	if w.Token != "" {
		req.Header.Set("Authorization", "Bearer "+w.Token)
	}
	client := w.Client
	if client == nil {
		client = &http.Client{Timeout: webhookTimeout}
	}
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("post audit records %d to %d: %w", recs[0].Seq, recs[len(recs)-1].Seq, err)
	}
	defer resp.Body.Close()
	said, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("post audit records %d to %d: the webhook answered %s: %s", recs[0].Seq, recs[len(recs)-1].Seq,
			resp.Status, freetext.Cut(string(bytes.TrimSpace(said)), 200))
	}
	return nil
}
