package server

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestCredentialsFromEnvFlagsAndFile(t *testing.T) {
	c, err := ParseConfig(nil, env(map[string]string{"RMQC_ACCESS_KEY": "rmqc-admin", "RMQC_SECRET_KEY": "from-env-secret"}), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if c.Credentials.AccessKey != "rmqc-admin" || c.Credentials.SecretKey != "from-env-secret" {
		t.Errorf("from env: %+v", c.Credentials)
	}
	c, err = ParseConfig([]string{"--secret-key", "from-flag-secret"},
		env(map[string]string{"RMQC_ACCESS_KEY": "rmqc-admin", "RMQC_SECRET_KEY": "from-env-secret"}), io.Discard)
	if err != nil || c.Credentials.SecretKey != "from-flag-secret" {
		t.Errorf("the flag should win over the variable: %v %v", c, err)
	}
	file := filepath.Join(t.TempDir(), "sk")
	if err := os.WriteFile(file, []byte("from-file-secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err = ParseConfig([]string{"--access-key", "rmqc-admin"}, env(map[string]string{"RMQC_SECRET_KEY_FILE": file}), io.Discard)
	if err != nil || c.Credentials.SecretKey != "from-file-secret" {
		t.Errorf("from file (newline trimmed): %v %v", c, err)
	}
	c, err = ParseConfig(nil, env(nil), io.Discard)
	if err != nil || c.Credentials.Set() {
		t.Errorf("no credentials by default: %v %v", c, err)
	}
}

func TestCredentialErrorsNameTheSettingNotTheSecret(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty")
	if err := os.WriteFile(empty, []byte("\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args []string
		env  map[string]string
		want string
	}{
		{nil, map[string]string{"RMQC_SECRET_KEY": "topsecret-value"}, "--access-key (RMQC_ACCESS_KEY)"},
		{[]string{"--access-key", "rmqc-admin"}, nil, "--secret-key (RMQC_SECRET_KEY)"},
		{nil, map[string]string{"RMQC_ACCESS_KEY": "rmqc-admin", "RMQC_SECRET_KEY": "topsecret-value", "RMQC_SECRET_KEY_FILE": empty}, "not both"},
		{nil, map[string]string{"RMQC_ACCESS_KEY": "rmqc-admin", "RMQC_SECRET_KEY_FILE": filepath.Join(dir, "missing")}, "--secret-key-file (RMQC_SECRET_KEY_FILE)"},
		{nil, map[string]string{"RMQC_ACCESS_KEY": "rmqc-admin", "RMQC_SECRET_KEY_FILE": empty}, "the file is empty"},
	}
	for _, tc := range cases {
		_, err := ParseConfig(tc.args, env(tc.env), io.Discard)
		var ce *ConfigError
		if !errors.As(err, &ce) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v %v: error %v, want one naming %s", tc.args, tc.env, err, tc.want)
		}
		if err != nil && strings.Contains(err.Error(), "topsecret") {
			t.Errorf("error shows the secret: %v", err)
		}
	}
}

func TestHelpMasksTheSecretKey(t *testing.T) {
	var out, errb bytes.Buffer
	getenv := env(map[string]string{"RMQC_ACCESS_KEY": "rmqc-admin", "RMQC_SECRET_KEY": "topsecret-value"})
	if code := run(context.Background(), []string{"--help"}, getenv, &out, &errb); code != 0 {
		t.Fatalf("--help exit %d", code)
	}
	help := out.String() + errb.String()
	if strings.Contains(help, "topsecret") {
		t.Errorf("--help shows the secret key:\n%s", help)
	}
	if !strings.Contains(help, `(default "rmqc-admin")`) {
		t.Errorf("--help does not show the access key's value from the environment:\n%s", help)
	}
}

func TestLogsNeverShowTheSecretKey(t *testing.T) {
	getenv := env(map[string]string{"RMQC_ACCESS_KEY": "rmqc-admin", "RMQC_SECRET_KEY": "topsecret-value",
		"RMQC_NAMESRV": "127.0.0.1:1", "RMQC_LOG_LEVEL": "debug", "RMQC_DATA_DIR": t.TempDir()})
	cfg, err := ParseConfig([]string{"--listen", "127.0.0.1:0"}, getenv, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	var logged syncBuffer
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	app, err := New(ctx, cfg, newLogger(cfg, &logged))
	if err != nil {
		t.Fatal(err)
	}
	defer app.Close()
	done := make(chan error, 1)
	go func() { done <- app.ListenAndServe(ctx) }()
	for !strings.Contains(logged.String(), "listening") {
		select {
		case err := <-done:
			t.Fatalf("stopped before listening: %v", err)
		case <-time.After(10 * time.Millisecond):
		}
	}
	cancel()
	<-done
	if strings.Contains(logged.String(), "topsecret") {
		t.Errorf("the log shows the secret key:\n%s", logged.String())
	}
	if !strings.Contains(logged.String(), "rmqc-admin") {
		t.Errorf("the log does not name the access key in use:\n%s", logged.String())
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
