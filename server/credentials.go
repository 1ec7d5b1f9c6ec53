package server

import (
	"os"
	"strings"

	"rmqconsole/rocketmq"
)

// credentialNames are what the settings of the credentials are called where they are
// given, for the sentences that refuse them.
type credentialNames struct{ AccessKey, SecretKey, SecretKeyFile string }

// flagCredentialNames name the credentials' variables (each has its flag too).
var flagCredentialNames = credentialNames{"RMQC_ACCESS_KEY", "RMQC_SECRET_KEY", "RMQC_SECRET_KEY_FILE"}

// parseCredentials reads the access key and its secret (from secret-key or from
// secret-key-file) for clusters with ACL on. Both or neither: a key without a secret
// signs nothing a broker accepts, and a secret without a key is never used. bad refuses
// a setting (by its flag name) with a catalogue sentence.
func parseCredentials(get func(string) string, bad func(name, id string, kv ...any) error, names credentialNames) (rocketmq.Credentials, error) {
	ak, sk, file := get("access-key"), get("secret-key"), get("secret-key-file")
	if sk != "" && file != "" {
		return rocketmq.Credentials{}, bad("secret-key-file", "cli.config.reason.secret_both")
	}
	if file != "" {
		b, err := os.ReadFile(file)
		if err != nil {
			return rocketmq.Credentials{}, bad("secret-key-file", "cli.config.reason.secret_unreadable", "Error", pathError(err))
		}
		if sk = strings.TrimRight(string(b), "\r\n"); sk == "" {
			return rocketmq.Credentials{}, bad("secret-key-file", "cli.config.reason.secret_empty")
		}
	}
	switch {
	case ak == "" && sk != "":
		return rocketmq.Credentials{}, bad("access-key", "cli.config.reason.no_access_key", "AccessKey", names.AccessKey)
	case ak != "" && sk == "":
		return rocketmq.Credentials{}, bad("secret-key", "cli.config.reason.no_secret_key", "Key", ak,
			"SecretKey", names.SecretKey, "SecretKeyFile", names.SecretKeyFile)
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
