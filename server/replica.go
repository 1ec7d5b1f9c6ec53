package server

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"rmqconsole/groups"
	"rmqconsole/store"
)

// Several consoles may share one PostgreSQL database behind a load balancer. Each is a
// replica: it beats a heartbeat into the database and bids for leader leases; the
// holder of a lease runs the work that must happen once for all of them. The console's
// lease (store.LeaderLease) covers what is done once for every cluster (sending alert
// notifications, pruning rebalance history); each configured cluster has a lease of its
// own (clusterLeaderLease) for what is done once per cluster (recording its lag history,
// evaluating its alert rules, marking the resets of replicas that died as interrupted),
// so consoles configured with different clusters each do that work for theirs. On
// SQLite the one console holds the file alone and always leads: its leader work is
// ordinary background work.

// beatEvery is how often a replica renews its heartbeat and the leases: three tries
// before either runs out.
const beatEvery = store.ReplicaLease / 3

// clusterLeaderLease names the lease of the work done once for a cluster.
func clusterLeaderLease(cluster string) string { return store.LeaderLease + ":" + cluster }

// replica is this console among those sharing its database.
type replica struct {
	st  *store.Store
	app *App
	// shared is false on SQLite: no heartbeat, always leading.
	shared bool
	// console is the console-wide lease; clusters each cluster's, by cluster name.
	console  *leadership
	clusters map[string]*leadership
	// all is every lease, the console's first, in the order they were made.
	all []*leadership
}

// leadership is one leader lease: whether this replica holds it, and the jobs it runs
// while it does.
type leadership struct {
	name    string
	leading atomic.Bool

	// jobs run while this replica holds the lease; started together, stopped together.
	jobs []func(ctx context.Context)
	mu   sync.Mutex
	stop func() // stops the running jobs and waits for them; nil when not leading
}

func (a *App) newReplica() *replica {
	r := &replica{st: a.store, app: a, shared: a.store.Dialect() == store.Postgres, clusters: map[string]*leadership{}}
	r.console = r.lease(store.LeaderLease)
	return r
}

func (r *replica) lease(name string) *leadership {
	l := &leadership{name: name}
	l.leading.Store(!r.shared)
	r.all = append(r.all, l)
	return l
}

// cluster is the lease of the work done once for the named cluster.
func (r *replica) cluster(name string) *leadership {
	l := r.clusters[name]
	if l == nil {
		l = r.lease(clusterLeaderLease(name))
		r.clusters[name] = l
	}
	return l
}

// Leads reports whether this replica runs the work done once for every cluster
// (always on SQLite).
func (r *replica) Leads() bool { return r.console.Leads() }

// Leads reports whether this replica holds the lease (always on SQLite).
func (l *leadership) Leads() bool { return l.leading.Load() }

// Replica names this console and the one leading now ("" when none holds the lease).
func (r *replica) Replica(ctx context.Context) (self, leader string, err error) {
	self = r.st.Replica()
	if !r.shared {
		return self, self, nil
	}
	leader, err = r.st.LeaseHolder(ctx, store.LeaderLease)
	return self, leader, err
}

// leaderOnly runs run while this console holds the console-wide lease: at once on
// SQLite, and on PostgreSQL each time this replica takes the lease, cancelled when it
// loses it. Register before start.
func (a *App) leaderOnly(run func(ctx context.Context)) { a.replica.only(a.replica.console, run) }

// leaderOnly runs run while this console holds the cluster's lease.
func (a *clusterApp) leaderOnly(run func(ctx context.Context)) {
	a.replica.only(a.replica.cluster(a.cc.Name), run)
}

func (r *replica) only(l *leadership, run func(ctx context.Context)) {
	if !r.shared {
		r.app.background(run)
		return
	}
	l.jobs = append(l.jobs, run)
}

// start beats a first heartbeat, then keeps beating and bidding for the leases in the
// background (nothing to do on SQLite). The first beat comes before the console serves:
// an entry this console writes must never look like a dead console's to the others.
func (r *replica) start(ctx context.Context) error {
	if !r.shared {
		return nil
	}
	if err := r.st.Heartbeat(ctx); err != nil {
		return err
	}
	r.app.background(r.run)
	return nil
}

func (r *replica) run(ctx context.Context) {
	log := r.app.log.With("component", "replica", "replica", r.st.Replica())
	t := time.NewTicker(beatEvery)
	defer t.Stop()
	for {
		r.beat(ctx, log)
		select {
		case <-ctx.Done():
			for _, l := range r.all {
				l.follow(log) // closing the store then hands the leases over at once
			}
			return
		case <-t.C:
		}
	}
}

// beat renews the heartbeat and bids for the leases. A round the database does not
// answer in time ends the leader work: the lease may run out before the next round, and
// another replica must never lead beside this one.
func (r *replica) beat(ctx context.Context, log *slog.Logger) {
	bctx, cancel := context.WithTimeout(ctx, beatEvery)
	defer cancel()
	if err := r.st.Heartbeat(bctx); err != nil && ctx.Err() == nil {
		log.Warn("heartbeat", "err", err)
	}
	for _, l := range r.all {
		leads, err := r.st.TakeLease(bctx, l.name)
		if err != nil && ctx.Err() == nil {
			log.Warn("renew a leader lease", "lease", l.name, "err", err)
		}
		switch {
		case leads && !l.Leads():
			l.lead(log)
		case !leads && l.Leads():
			l.follow(log)
		}
	}
}

func (l *leadership) lead(log *slog.Logger) {
	l.mu.Lock()
	defer l.mu.Unlock()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for _, job := range l.jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			job(ctx)
		}()
	}
	l.stop = func() { cancel(); wg.Wait() }
	l.leading.Store(true)
	log.Info("this console leads the background work", "lease", l.name)
}

func (l *leadership) follow(log *slog.Logger) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.stop == nil {
		return
	}
	l.leading.Store(false)
	l.stop()
	l.stop = nil
	log.Info("this console no longer leads the background work", "lease", l.name)
}

// whenLeading wraps a step of the cluster's lag collector that writes what must be
// written once (lag history, alert states): every replica reads the groups for its own
// /metrics, the holder of the cluster's lease alone records them.
func (a *clusterApp) whenLeading(step func(context.Context, *groups.List)) func(context.Context, *groups.List) {
	l := a.replica.cluster(a.cc.Name)
	return func(ctx context.Context, gl *groups.List) {
		if l.Leads() {
			step(ctx, gl)
		}
	}
}

// reconcileWhileLeading marks the resets of replicas that died as interrupted, each
// beat, while this replica leads. (At start-up every console marks those it finds.)
func (a *clusterApp) reconcileWhileLeading() {
	if !a.replica.shared {
		return // the one console marked them at start-up; nobody else writes the file
	}
	a.leaderOnly(func(ctx context.Context) {
		t := time.NewTicker(beatEvery)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				a.markInterruptedResets(ctx)
			}
		}
	})
}
