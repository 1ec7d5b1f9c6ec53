package server

import "strconv"

// parseLiveLimits reads the bounds of the live views: every live page holds a connection,
// and every group watched polls the brokers each tick, so neither may grow with what a
// client asks for.
func parseLiveLimits(c *Config, get func(string) string, bad func(name, reason string) error) error {
	for _, l := range []struct {
		name string
		to   *int
	}{{"live-views-per-user", &c.LiveViewsPerUser}, {"live-groups", &c.LiveGroups}} {
		n, err := strconv.Atoi(get(l.name))
		if err != nil || n < 1 {
			return bad(l.name, "want a whole number of at least 1")
		}
		*l.to = n
	}
	return nil
}
