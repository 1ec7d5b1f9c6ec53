package main

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"time"
)

// listening matches the console's start-up line, which carries the URL it serves.
var listening = regexp.MustCompile(`msg="rmqconsole listening" url=(\S+)`)

// announceReady copies the child's log to w line by line and, once the console says
// where it listens and answers there, prints its URL on a line of its own: the one line
// to look for among RocketMQ's and the console's start-up output.
func announceReady(r io.Reader, w io.Writer, answers func(url string) bool) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	announced := false
	for sc.Scan() {
		fmt.Fprintln(w, sc.Text())
		if m := listening.FindStringSubmatch(sc.Text()); m != nil && !announced {
			announced = true
			go func(url string) {
				if answers(url) {
					fmt.Fprintf(w, "\nrmqconsole is ready:\n\n    %s\n\n(Ctrl-C stops it and the RocketMQ it started)\n", url)
				}
			}(m[1])
		}
	}
	_, _ = io.Copy(w, r)
}

// healthy waits up to a minute for the console's /healthz to answer 200.
func healthy(url string) bool {
	c := &http.Client{Timeout: 2 * time.Second}
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		res, err := c.Get(url + "/healthz")
		if err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				return true
			}
		}
	}
	return false
}

// exitCode is what run answers when its command ended: a command stopped by the
// user's Ctrl-C (which run forwarded) ended as asked, so that is a success.
func exitCode(status int, signaled, interrupted bool) int {
	if interrupted && (status == 0 || signaled) {
		return 0
	}
	return status
}
