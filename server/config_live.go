package server

import "strconv"

// parseLiveLimits reads the bounds of the live views: every live page holds a connection,
// and every group watched polls the brokers each tick, so neither may grow with what a
// client asks for.
func parseLiveLimits(c *Config, v settingValues) error {
	for _, l := range []struct {
		name string
		to   *int
	}{{"live-views-per-user", &c.LiveViewsPerUser}, {"live-groups", &c.LiveGroups},
		{"topic-figures-budget", &c.TopicFiguresBudget}, {"group-max-offset-reads", &c.GroupMaxOffsetReads}} {
		n, err := strconv.Atoi(v.get(l.name))
		if err != nil || n < 1 {
			return v.bad(l.name, "cli.config.reason.count")
		}
		*l.to = n
	}
	return nil
}
