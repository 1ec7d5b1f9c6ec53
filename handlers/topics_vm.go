package handlers

import (
	"slices"
	"strings"
	"time"

	"rmqconsole/cluster"
	"rmqconsole/i18n"
	"rmqconsole/topics"
	"rmqconsole/views"
)

// brokerErrorsJSON is the API's old list of brokers that failed ({"broker","error"}), kept
// beside "failures" for one release.
func brokerErrorsJSON(fs []cluster.BrokerFailure) []BrokerErrorJSON {
	var out []BrokerErrorJSON
	for _, f := range fs {
		out = append(out, BrokerErrorJSON{Broker: f.Broker, Error: f.Reason()})
	}
	return out
}

func topicsVM(lz *i18n.Localizer, vm views.TopicsVM, l *topics.List, q topics.ListQuery, pg topics.Page, now time.Time) views.TopicsVM {
	vm.Total = pg.Total
	for _, t := range l.Topics {
		if t.System && !q.System {
			vm.Hidden++
		}
	}
	for _, s := range pg.Topics {
		vm.Rows = append(vm.Rows, topicRowVM(lz, s, now))
	}
	vm.CheckedAt, vm.CheckedISO = views.TimeUTC(l.CheckedAt), views.ISO(l.CheckedAt)
	vm.Took = l.Took.Round(time.Millisecond).String()
	vm.Failures = sayFailures(lz, l.Failures)
	return vm
}

func topicRowVM(l *i18n.Localizer, s topics.Summary, now time.Time) views.TopicListRow {
	r := views.TopicListRow{Topic: s.Topic, URL: views.TopicURL(s.Topic), MessagesURL: views.TopicMessagesURL(s.Topic),
		Type: s.Type, System: s.System, ReadQueues: s.ReadQueues, WriteQueues: s.WriteQueues, Perm: permLabel(l, s.Perm),
		PutTPS: tpsLabel(l, s.PutTPS), Messages: l.Int(s.Messages), Partial: s.StatsFrom > 0 && s.StatsFrom < len(s.Brokers)}
	if s.FiguresAt != nil {
		r.FiguresAge = ageLabel(l, now.Sub(*s.FiguresAt))
		r.FiguresAt, r.FiguresISO = views.TimeUTC(*s.FiguresAt), views.ISO(*s.FiguresAt)
	} else {
		// Not 0: nothing was read yet, or the brokers did not answer.
		r.PutTPS, r.Messages = l.T("topics.figures.unknown"), l.T("topics.figures.unknown")
		r.FiguresWhy, r.FiguresWhyTitle = l.T("topics.figures."+s.FiguresUnknown), l.T("topics.figures."+s.FiguresUnknown+".title")
	}
	for _, b := range s.Brokers {
		r.Brokers = append(r.Brokers, views.BrokerLink{Name: b, URL: views.BrokerURL(b), Unknown: slices.Contains(s.UnknownOn, b)})
	}
	return r
}

// ageLabel is how old a figure is, as the page's script writes it ("12 s ago"): the
// text before the script runs, and without it.
func ageLabel(l *i18n.Localizer, d time.Duration) string {
	s := int64(d.Round(time.Second) / time.Second)
	switch {
	case s < 60:
		return l.T("topics.figures.ago.s", "N", max(s, 0))
	case s < 3600:
		return l.T("topics.figures.ago.m", "N", (s+30)/60)
	case s < 86400:
		return l.T("topics.figures.ago.h", "N", (s+1800)/3600)
	}
	return l.T("topics.figures.ago.d", "N", (s+43200)/86400)
}

// figuresSortNote says, when the list is sorted by messages or TPS, that the order is
// the figures' in memory: how old the oldest is, and how many topics have none yet.
func figuresSortNote(l *i18n.Localizer, q topics.ListQuery, age topics.FigureAge, now time.Time) string {
	if q.Sort != "messages" && q.Sort != "tps" {
		return ""
	}
	note := l.T("topics.figures.sorted")
	if age.Oldest != nil {
		note += l.T("topics.figures.sorted.oldest", "Age", ageLabel(l, now.Sub(*age.Oldest)))
	}
	if age.Unknown > 0 {
		note += l.N("topics.figures.sorted.unknown", age.Unknown)
	}
	return note
}

func permLabel(l *i18n.Localizer, p int) string {
	if p < 0 {
		return l.T("topics.perm.differs")
	}
	return topics.PermString(p)
}

// tpsLabel is a rate, or "n/a" when the brokers do not report it (before 5.3.3).
func tpsLabel(l *i18n.Localizer, v *float64) string {
	if v == nil {
		return l.T("topics.tps.na")
	}
	return views.Rate(*v)
}

func msTime(ms int64) (string, string) {
	if ms <= 0 {
		return "", ""
	}
	t := time.UnixMilli(ms)
	return views.TimeUTC(t), views.ISO(t)
}

// storedLabel is the topic's stored message count, "unknown" when no broker of its
// route answered its stats (a refusal or a failure the page names): not 0.
func storedLabel(l *i18n.Localizer, d *topics.Detail) string {
	if d.StatsFrom == 0 && len(d.Route) > 0 {
		return l.T("topics.type.unknown")
	}
	return l.Int(d.Messages)
}

func topicPageVM(l *i18n.Localizer, d *topics.Detail) views.TopicVM {
	vm := views.TopicVM{Topic: d.Topic, Type: d.Type, Order: d.Order, System: d.System, MessagesURL: views.TopicMessagesURL(d.Topic),
		Messages: storedLabel(l, d), CheckedAt: views.TimeUTC(d.CheckedAt), CheckedISO: views.ISO(d.CheckedAt),
		Failures: sayFailures(l, d.Failures)}
	if d.PutTPS != nil {
		vm.PutTPS = views.Rate(*d.PutTPS)
	}
	if d.Type == topics.TypeUnknown {
		vm.TypeNote = l.T("topic.typenote.4x")
	}
	for _, r := range d.Route {
		vm.Route = append(vm.Route, views.TopicRouteRow{Broker: views.BrokerLink{Name: r.Broker, URL: views.BrokerURL(r.Broker)},
			Master: r.Master, Slaves: r.Slaves, ReadQueues: r.ReadQueues, WriteQueues: r.WriteQueues, Perm: topics.PermString(r.Perm)})
	}
	for _, q := range d.Queues {
		row := views.TopicQueueRow{Broker: q.Broker, QueueID: q.QueueID, MinOffset: views.Thousands(q.MinOffset),
			MaxOffset: views.Thousands(q.MaxOffset), Messages: views.Thousands(max(q.MaxOffset-q.MinOffset, 0))}
		row.LastUpdate, row.LastISO = msTime(q.LastUpdate)
		vm.Queues = append(vm.Queues, row)
	}
	for _, g := range d.Groups {
		row := views.TopicGroupRow{Group: g.Group, URL: views.GroupURL(g.Group), Lag: views.Thousands(g.Lag), TPS: views.Rate(g.ConsumeTPS), Partial: g.Partial}
		for _, c := range g.Clients {
			row.Clients = append(row.Clients, views.TopicGroupClient{ID: c.ClientID, URL: views.ClientURL(g.Group, c.ClientID), Addr: c.ClientAddr,
				Language: c.Language, Protocol: c.Protocol, KnownTo: c.KnownTo})
		}
		row.Last, row.LastISO = msTime(g.LastTimestamp)
		vm.Groups = append(vm.Groups, row)
	}
	vm.GroupsUnlisted = d.GroupsFrom == 0 && len(d.Route) > 0
	vm.GroupsNote = l.T("topic.groups.note")
	vm.Producers = views.TopicProducersVM{Listed: d.Producers.Listed, Unsupported: d.Producers.Unsupported, LookedUp: d.Producers.LookedUp, FormURL: views.TopicURL(d.Topic)}
	for _, g := range d.Producers.Groups {
		pg := views.TopicProducerGroupVM{Group: g.Group}
		for _, c := range g.Connections {
			row := views.TopicProducerRow{ClientID: c.ClientID, ClientAddr: c.ClientAddr, Language: c.Language, Version: c.VersionName, Brokers: strings.Join(c.Brokers, ", ")}
			row.Heartbeat, row.HeartISO = msTime(c.LastHeartbeat)
			pg.Connections = append(pg.Connections, row)
		}
		vm.Producers.Groups = append(vm.Producers.Groups, pg)
	}
	return vm
}
