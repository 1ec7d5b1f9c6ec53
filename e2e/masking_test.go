package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apache/rocketmq-client-go/v2/primitive"
	"github.com/chromedp/chromedp"

	"rmqconsole/dev"
	"rmqconsole/dev/rmqclient"
)

// A viewer opens a message whose customer's e-mail a masking rule covers: the page
// shows the JSON body with •••• in the field, the order's other fields, and a note that
// the body is masked for the viewer's role; the e-mail is nowhere on the page.
func TestAViewerSeesTheMessagePageMasked(t *testing.T) {
	skipShort(t)
	cl := dev.RequireCluster(t)
	ctx0, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	topic := dev.UniqueName("masked-page")
	if err := cl.CreateTopic(ctx0, topic, 1); err != nil {
		t.Fatal(err)
	}
	const email = "zoe.secret@example.com"
	p := rmqclient.StartProducer(t, cl.NameServer, "")
	m := primitive.NewMessage(topic, []byte(`{"order":42,"customer":{"name":"Zoë","email":"`+email+`"},"items":[{"sku":"SKU-7","qty":2}]}`))
	m.WithProperty("userId", "user-77-hidden")
	sent, err := p.SendSync(ctx0, m)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	conf := filepath.Join(dir, "console.yaml")
	if err := os.WriteFile(conf, []byte(fmt.Sprintf("clusters:\n  - name: default\n    namesrv: [%q]\nmasking:\n  rules:\n    - topic: %q\n      json_paths: [customer.email]\n      properties: [userId]\n", cl.NameServer, topic)), 0o600); err != nil {
		t.Fatal(err)
	}
	addUser(t, dir, "vera", "viewer")
	con := StartConsole(t, "RMQC_CONFIG="+conf, "RMQC_DATA_DIR="+dir)
	ctx := Browser(t)
	Do(t, ctx, "open the message page", chromedp.Navigate(con.URL+"/messages/"+sent.OffsetMsgID+"?topic="+topic))
	signIn(t, ctx, "vera", e2ePassword)
	Do(t, ctx, "land on the message page", chromedp.WaitVisible(chromedp.CSS(`[data-testid="body-content"]`)))
	Screenshot(t, ctx, "message-masked")
	body := TextNow(t, ctx, "the body", `[data-testid="body-content"]`)
	if !strings.Contains(body, `"email": "••••"`) || !strings.Contains(body, `"sku": "SKU-7"`) {
		t.Errorf("the body shown is not the order with its e-mail masked:\n%s", body)
	}
	if note := TextNow(t, ctx, "the note", `[data-testid="body-masked"]`); !strings.Contains(note, "masked for your role (viewer)") {
		t.Errorf("note %q: want it to say the body is masked for the viewer's role", note)
	}
	if all := TextNow(t, ctx, "the page", "body"); strings.Contains(all, email) || strings.Contains(all, "user-77-hidden") {
		t.Error("the page shows a masked value")
	}
}
