package server

import (
	"crypto/tls"
	"fmt"
)

// loadTLS reads the certificate and key of --tls-cert and --tls-key; nil (plain HTTP)
// when none is configured.
func loadTLS(cfg *Config) (*tls.Config, error) {
	if cfg.TLSCert == "" {
		return nil, nil
	}
	cert, err := tls.LoadX509KeyPair(cfg.TLSCert, cfg.TLSKey)
	if err != nil {
		return nil, fmt.Errorf("load TLS certificate %s and key %s (--tls-cert, --tls-key): %w", cfg.TLSCert, cfg.TLSKey, err)
	}
	return &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}, nil
}
