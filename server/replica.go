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
// replica: it beats a heartbeat into the database, and one at a time holds the leader
// lease and runs the work that must happen once for all of them (recording lag history,
// evaluating and sending alerts, pruning rebalance history, marking the resets of
// replicas that died as interrupted). On SQLite the one console holds the file alone
// and always leads: its leader work is ordinary background work.

// beatEvery is how often a replica renews its heartbeat and the lease: three tries
// before either runs out.
const beatEvery = store.ReplicaLease / 3

// replica is this console among those sharing its database.
type replica struct {
	st  *store.Store
	app *App
	// shared is false on SQLite: no heartbeat, always leading.
	shared  bool
	leading atomic.Bool

	// jobs run while this replica leads; started together, stopped together.
	jobs []func(ctx context.Context)
	mu   sync.Mutex
	stop func() // stops the running jobs and waits for them; nil when not leading
}

func (a *App) newReplica() *replica {
	r := &replica{st: a.store, app: a, shared: a.store.Dialect() == store.Postgres}
	r.leading.Store(!r.shared)
	return r
}

// Leads reports whether this replica runs the work done once (always on SQLite).
func (r *replica) Leads() bool { return r.leading.Load() }

// Replica names this console and the one leading now ("" when none holds the lease).
func (r *replica) Replica(ctx context.Context) (self, leader string, err error) {
	self = r.st.Replica()
	if !r.shared {
		return self, self, nil
	}
	leader, err = r.st.LeaseHolder(ctx, store.LeaderLease)
	return self, leader, err
}

// leaderOnly runs run while this console leads: at once on SQLite, and on PostgreSQL
// each time this replica takes the lease, cancelled when it loses it. Register before
// start.
func (a *App) leaderOnly(run func(ctx context.Context)) {
	if !a.replica.shared {
		a.background(run)
		return
	}
	a.replica.jobs = append(a.replica.jobs, run)
}

// start beats a first heartbeat, then keeps beating and bidding for the lease in the
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
			r.follow(log) // closing the store then hands the lease over at once
			return
		case <-t.C:
		}
	}
}

// beat renews the heartbeat and bids for the lease. A round the database does not
// answer in time ends the leader work: the lease may run out before the next round, and
// another replica must never lead beside this one.
func (r *replica) beat(ctx context.Context, log *slog.Logger) {
	bctx, cancel := context.WithTimeout(ctx, beatEvery)
	defer cancel()
	if err := r.st.Heartbeat(bctx); err != nil && ctx.Err() == nil {
		log.Warn("heartbeat", "err", err)
	}
	leads, err := r.st.TakeLease(bctx, store.LeaderLease)
	if err != nil && ctx.Err() == nil {
		log.Warn("renew the leader lease", "err", err)
	}
	switch {
	case leads && !r.Leads():
		r.lead(log)
	case !leads && r.Leads():
		r.follow(log)
	}
}

func (r *replica) lead(log *slog.Logger) {
	r.mu.Lock()
	defer r.mu.Unlock()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for _, job := range r.jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			job(ctx)
		}()
	}
	r.stop = func() { cancel(); wg.Wait() }
	r.leading.Store(true)
	log.Info("this console leads the background work")
}

func (r *replica) follow(log *slog.Logger) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.stop == nil {
		return
	}
	r.leading.Store(false)
	r.stop()
	r.stop = nil
	log.Info("this console no longer leads the background work")
}

// whenLeading wraps a step of the lag collector that writes what must be written once
// (lag history, alert states): every replica reads the groups for its own /metrics, the
// leader alone records them.
func (a *App) whenLeading(step func(context.Context, *groups.List)) func(context.Context, *groups.List) {
	return func(ctx context.Context, l *groups.List) {
		if a.replica.Leads() {
			step(ctx, l)
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
