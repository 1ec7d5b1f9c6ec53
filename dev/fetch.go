package dev

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"
)

// completeMarker is written into <cache>/<version>/ only after lib/ holds every
// jar, so an interrupted download is never mistaken for a usable cache.
const completeMarker = ".complete"

// pluginCoords pins the dependency plugin: Maven 3.8 would otherwise resolve "latest".
const pluginCoords = "org.apache.maven.plugins:maven-dependency-plugin:3.8.1:copy-dependencies"

const pomTemplate = `<project xmlns="http://maven.apache.org/POM/4.0.0">
  <!-- Throw-away POM written by rmqconsole/dev: copy-dependencies needs a project. -->
  <modelVersion>4.0.0</modelVersion>
  <groupId>local.rmqconsole</groupId>
  <artifactId>rocketmq-runtime</artifactId>
  <version>1</version>
  <packaging>pom</packaging>%[3]s
  <dependencies>
    <!-- The broker first: where the two releases' dependencies differ, its own win. -->
    <dependency><groupId>org.apache.rocketmq</groupId><artifactId>rocketmq-broker</artifactId><version>%[1]s</version></dependency>
    <dependency><groupId>org.apache.rocketmq</groupId><artifactId>rocketmq-namesrv</artifactId><version>%[2]s</version></dependency>
  </dependencies>
</project>
`

// pinnedModules is the POM's dependencyManagement for a release whose own
// modules Maven Central lacks in part (missingModules).
func pinnedModules(version string) string {
	pins := missingModules[version]
	if len(pins) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("\n  <dependencyManagement><dependencies>\n")
	for _, a := range slices.Sorted(maps.Keys(pins)) {
		fmt.Fprintf(&b, "    <dependency><groupId>org.apache.rocketmq</groupId><artifactId>%s</artifactId><version>%s</version></dependency>\n", a, pins[a])
	}
	b.WriteString("  </dependencies></dependencyManagement>")
	return b.String()
}

// LibDir returns <cache>/<version>/lib whether or not it has been fetched.
func LibDir(version string) (string, error) {
	root, err := CacheRoot()
	if err != nil {
		return "", err
	}
	return filepath.Join(root, version, "lib"), nil
}

// Cached reports whether version's jars are completely in the cache.
func Cached(version string) bool {
	lib, err := LibDir(version)
	return err == nil && complete(lib)
}

// Fetch makes sure the NameServer, Broker and mqadmin jars of version are in
// the cache and returns the lib dir to put on a classpath ("<lib>/*"). A
// complete cache is reused without touching the network; otherwise mvn
// downloads from Maven Central. Concurrent callers (test binaries run in
// parallel) serialise on a lock file. Progress lines go to log (may be nil).
func Fetch(ctx context.Context, version string, log io.Writer) (string, error) {
	lib, err := LibDir(version)
	if err != nil {
		return "", err
	}
	return fetchJars(ctx, jarSet{
		what: "rocketmq " + version,
		lib:  lib,
		pom:  fmt.Sprintf(pomTemplate, version, nameServerVersion(version), pinnedModules(version)),
		// The jars we start from: checked before the cache is declared complete.
		main: map[string]string{"rocketmq-namesrv": nameServerVersion(version), "rocketmq-broker": version,
			"rocketmq-tools": nameServerVersion(version)},
		hint: versionHint(version),
	}, log)
}

// jarSet is one cache directory filled by mvn from one generated POM.
type jarSet struct {
	what string            // for messages: "rocketmq 5.3.3"
	lib  string            // <cache>/<dir>/lib
	pom  string            // the POM whose runtime dependencies fill lib
	main map[string]string // artifact -> version that must be in lib afterwards
	hint string            // appended when one of main is not on Maven Central
}

// fetchJars fills s.lib unless it is complete already (see Fetch).
func fetchJars(ctx context.Context, s jarSet, log io.Writer) (string, error) {
	if log == nil {
		log = io.Discard
	}
	lib := s.lib
	verDir := filepath.Dir(lib)
	if complete(lib) {
		return lib, nil
	}
	if err := os.MkdirAll(verDir, 0o755); err != nil {
		return "", fmt.Errorf("fetch %s: %w", s.what, err)
	}
	unlock, err := lockFile(ctx, verDir+".lock")
	if err != nil {
		return "", fmt.Errorf("fetch %s: %w", s.what, err)
	}
	defer unlock()
	if complete(lib) { // someone else finished while we waited for the lock
		return lib, nil
	}
	if _, err := exec.LookPath("mvn"); err != nil {
		return "", fmt.Errorf("fetch %s: %w", s.what, ErrMissingTools{Missing: []string{"mvn"}})
	}

	pom := filepath.Join(verDir, "pom.xml")
	if err := os.WriteFile(pom, []byte(s.pom), 0o644); err != nil {
		return "", fmt.Errorf("fetch %s: write pom: %w", s.what, err)
	}
	tmp := lib + ".tmp"
	if err := os.RemoveAll(tmp); err != nil {
		return "", fmt.Errorf("fetch %s: %w", s.what, err)
	}
	logPath := filepath.Join(verDir, "fetch.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		return "", fmt.Errorf("fetch %s: %w", s.what, err)
	}
	defer logFile.Close()

	fmt.Fprintf(log, "dev: fetching %s from Maven Central into %s (mvn log: %s)\n", s.what, lib, logPath)
	start := time.Now()
	cmd := exec.CommandContext(ctx, "mvn", "-B", "-ntp", "-f", pom, pluginCoords,
		"-DoutputDirectory="+tmp, "-DincludeScope=runtime")
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Run(); err != nil {
		if missing := notOnCentral(logPath, s.main); missing != "" {
			return "", fmt.Errorf("fetch %s: %s is not on Maven Central%s (mvn log: %s)", s.what, missing, s.hint, logPath)
		}
		return "", fmt.Errorf("fetch %s: mvn: %w\n%s", s.what, err, tailFile(logPath, 30))
	}
	for a, v := range s.main {
		jar := filepath.Join(tmp, a+"-"+v+".jar")
		if _, err := os.Stat(jar); err != nil {
			return "", fmt.Errorf("fetch %s: %s missing after mvn: %w", s.what, filepath.Base(jar), err)
		}
	}
	if err := os.RemoveAll(lib); err != nil {
		return "", fmt.Errorf("fetch %s: %w", s.what, err)
	}
	if err := os.Rename(tmp, lib); err != nil {
		return "", fmt.Errorf("fetch %s: %w", s.what, err)
	}
	n, size := dirSize(lib)
	marker := fmt.Sprintf("what=%s\njars=%d\nbytes=%d\nfetched=%s\n", s.what, n, size, time.Now().UTC().Format(time.RFC3339))
	if err := os.WriteFile(filepath.Join(verDir, completeMarker), []byte(marker), 0o644); err != nil {
		return "", fmt.Errorf("fetch %s: write marker: %w", s.what, err)
	}
	fmt.Fprintf(log, "dev: fetched %s: %d jars, %.1f MiB in %s\n",
		s.what, n, float64(size)/(1<<20), time.Since(start).Round(100*time.Millisecond))
	return lib, nil
}

// complete reports whether lib was filled to the end (its marker is there).
func complete(lib string) bool {
	_, err := os.Stat(filepath.Join(filepath.Dir(lib), completeMarker))
	return err == nil
}

// lockFile takes an exclusive flock, polling so ctx can cancel the wait.
func lockFile(ctx context.Context, path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() { syscall.Flock(int(f.Fd()), syscall.LOCK_UN); f.Close() }, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", path, ctx.Err())
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// dirSize counts the regular files directly in dir and their bytes.
func dirSize(dir string) (n int, size int64) {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if info, err := e.Info(); err == nil && info.Mode().IsRegular() {
			n++
			size += info.Size()
		}
	}
	return n, size
}

// ErrMissingTools says which programs needed to run RocketMQ are not on PATH.
type ErrMissingTools struct{ Missing []string }

func (e ErrMissingTools) Error() string {
	hints := map[string]string{
		"java": "java (a JDK 17, e.g. apt-get install openjdk-17-jdk-headless)",
		"mvn":  "mvn (Maven 3.8+, e.g. apt-get install maven)",
	}
	var parts []string
	for _, m := range e.Missing {
		parts = append(parts, hints[m])
	}
	return "not on PATH: " + strings.Join(parts, ", ") + "; install them to run the local RocketMQ"
}

// MissingTools returns the programs that running version needs but PATH lacks:
// java always, mvn only while the cache is incomplete.
func MissingTools(version string) []string {
	var missing []string
	if _, err := exec.LookPath("java"); err != nil {
		missing = append(missing, "java")
	}
	if !Cached(version) {
		if _, err := exec.LookPath("mvn"); err != nil {
			missing = append(missing, "mvn")
		}
	}
	return missing
}

// notOnCentral returns the artifact of main that mvn could not find at all
// (as opposed to a network failure), e.g. "rocketmq-namesrv 4.9.8".
func notOnCentral(mvnLog string, main map[string]string) string {
	data, _ := os.ReadFile(mvnLog)
	for _, a := range slices.Sorted(maps.Keys(main)) {
		coords := "org.apache.rocketmq:" + a + ":jar:" + main[a]
		// First attempt: "Could not find artifact X"; later ones (failure cached
		// in ~/.m2): "X was not found in https://... during a previous attempt".
		if strings.Contains(string(data), "Could not find artifact "+coords) || strings.Contains(string(data), coords+" was not found in") {
			return a + " " + main[a]
		}
	}
	return ""
}

// versionHint explains the one gap we know of: Apache released 4.9.8 but
// published only its client-side modules to Maven Central, not the
// NameServer or Broker.
func versionHint(version string) string {
	if version == "4.9.8" {
		return "; only its client-side modules were published there. The newest 4.x NameServer and Broker on Central are " +
			Version4 + ": use RMQ_VERSION=" + Version4
	}
	return ""
}
