package server

import (
	"os"
	"strings"

	"rmqconsole/rocketmq"
)

// parseCredentials reads the access key and its secret (from --secret-key or from
// --secret-key-file) for clusters with ACL on. Both or neither: a key without a
// secret signs nothing a broker accepts, and a secret without a key is never used.
func parseCredentials(get func(string) string, bad func(name, reason string) error) (rocketmq.Credentials, error) {
	ak, sk, file := get("access-key"), get("secret-key"), get("secret-key-file")
	if sk != "" && file != "" {
		return rocketmq.Credentials{}, bad("secret-key-file", "set either the secret key or a file holding it, not both")
	}
	if file != "" {
		b, err := os.ReadFile(file)
		if err != nil {
			return rocketmq.Credentials{}, bad("secret-key-file", "cannot read it: "+pathError(err))
		}
		if sk = strings.TrimRight(string(b), "\r\n"); sk == "" {
			return rocketmq.Credentials{}, bad("secret-key-file", "the file is empty")
		}
	}
	switch {
	case ak == "" && sk != "":
		return rocketmq.Credentials{}, bad("access-key", "a secret key is set but no access key (RMQC_ACCESS_KEY) to sign with")
	case ak != "" && sk == "":
		return rocketmq.Credentials{}, bad("secret-key", "access key "+ak+" has no secret key: set RMQC_SECRET_KEY or RMQC_SECRET_KEY_FILE")
	}
	return rocketmq.Credentials{AccessKey: ak, SecretKey: sk}, nil
}

// pathError is the reason of a file error without the path, which the error names already.
func pathError(err error) string {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err.Error()
	}
	return err.Error()
}
