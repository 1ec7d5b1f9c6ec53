package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// AlertRule is one alert rule as stored (package alerts validates and explains it).
type AlertRule struct {
	ID           int64
	Name         string
	GroupPattern string
	Metric       string // lag or lagTime
	Threshold    int64
	For          time.Duration
	WebhookURL   string
	Format       string // json, slack or dingtalk
	CreatedBy    string
	CreatedAt    time.Time
}

// AlertState is where a rule stands for one group.
type AlertState struct {
	RuleID     int64
	Group      string
	State      string // pending, firing, resolved
	Since      time.Time
	Value      *int64
	FiredAt    time.Time
	ResolvedAt time.Time
}

// AlertDelivery is one notification to a webhook and what became of it.
type AlertDelivery struct {
	ID           int64
	RuleID       int64
	RuleName     string
	Group        string
	Event        string // firing or resolved
	CreatedAt    time.Time
	URL          string
	Format       string
	Body         string
	Status       string // pending, sent, failed
	Attempts     int
	NextAt       time.Time
	ResponseCode int
	Error        string
}

// ErrAlertRuleNotFound means no rule has the id asked for.
var ErrAlertRuleNotFound = errors.New("alert rule not found")

type alertRuleRow struct {
	ID           int64 `gorm:"primaryKey"`
	Cluster      string
	Name         string
	GroupPattern string
	Metric       string
	Threshold    int64
	ForMs        int64
	WebhookURL   string
	Format       string
	CreatedBy    string
	CreatedAtMs  int64
}

func (alertRuleRow) TableName() string { return "alert_rules" }

func (r alertRuleRow) rule() AlertRule {
	return AlertRule{ID: r.ID, Name: r.Name, GroupPattern: r.GroupPattern, Metric: r.Metric, Threshold: r.Threshold,
		For: time.Duration(r.ForMs) * time.Millisecond, WebhookURL: r.WebhookURL, Format: r.Format, CreatedBy: r.CreatedBy,
		CreatedAt: time.UnixMilli(r.CreatedAtMs).UTC()}
}

type alertStateRow struct {
	RuleID       int64  `gorm:"primaryKey"`
	GroupName    string `gorm:"primaryKey"`
	State        string
	SinceMs      int64
	Value        *int64
	FiredAtMs    int64
	ResolvedAtMs int64
}

func (alertStateRow) TableName() string { return "alert_states" }

type alertDeliveryRow struct {
	ID           int64 `gorm:"primaryKey"`
	RuleID       int64
	RuleName     string
	GroupName    string
	Event        string
	CreatedAtMs  int64
	URL          string `gorm:"column:url"`
	Format       string
	Body         string
	Status       string
	Attempts     int
	NextAtMs     int64
	ResponseCode int
	Error        string
}

func (alertDeliveryRow) TableName() string { return "alert_deliveries" }

func msOrZero(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMilli()
}

func timeOrZero(ms int64) time.Time {
	if ms == 0 {
		return time.Time{}
	}
	return time.UnixMilli(ms).UTC()
}

// CreateAlertRule stores a rule and its audit entry in one transaction: a rule is never
// created unaudited. It sets the rule's and the entry's ids.
func (s *Store) CreateAlertRule(ctx context.Context, r *AlertRule, audit *AuditEntry) error {
	ctx, cancel := s.deadline(ctx)
	defer cancel()
	row := alertRuleRow{Cluster: s.cluster, Name: r.Name, GroupPattern: r.GroupPattern, Metric: r.Metric, Threshold: r.Threshold,
		ForMs: r.For.Milliseconds(), WebhookURL: r.WebhookURL, Format: r.Format, CreatedBy: r.CreatedBy, CreatedAtMs: r.CreatedAt.UnixMilli()}
	err := s.DB.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if err := tx.Create(&row).Error; err != nil {
			return err
		}
		r.ID = row.ID
		return s.Audit().recordTx(tx, audit)
	})
	if err != nil {
		return fmt.Errorf("create alert rule %q: %w", r.Name, err)
	}
	return nil
}

// DeleteAlertRule deletes a rule (its states go with it; its deliveries are kept) and
// records the audit entry in the same transaction.
func (s *Store) DeleteAlertRule(ctx context.Context, id int64, audit *AuditEntry) error {
	ctx, cancel := s.deadline(ctx)
	defer cancel()
	err := s.DB.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		r := tx.Where("cluster = ?", s.cluster).Delete(&alertRuleRow{}, id)
		if r.Error != nil {
			return r.Error
		}
		if r.RowsAffected == 0 {
			return ErrAlertRuleNotFound
		}
		return s.Audit().recordTx(tx, audit)
	})
	if err != nil {
		return fmt.Errorf("delete alert rule %d: %w", id, err)
	}
	return nil
}

// AlertRule returns one rule, or an error matching ErrAlertRuleNotFound.
func (s *Store) AlertRule(ctx context.Context, id int64) (*AlertRule, error) {
	ctx, cancel := s.deadline(ctx)
	defer cancel()
	var row alertRuleRow
	if err := s.DB.WithContext(ctx).Where("cluster = ?", s.cluster).Take(&row, id).Error; err != nil {
		if errors.Is(err, gorm.ErrRecordNotFound) {
			return nil, fmt.Errorf("alert rule %d: %w", id, ErrAlertRuleNotFound)
		}
		return nil, fmt.Errorf("read alert rule %d: %w", id, err)
	}
	r := row.rule()
	return &r, nil
}

// AlertRules returns every rule, oldest first.
func (s *Store) AlertRules(ctx context.Context) ([]AlertRule, error) {
	ctx, cancel := s.deadline(ctx)
	defer cancel()
	var rows []alertRuleRow
	if err := s.DB.WithContext(ctx).Where("cluster = ?", s.cluster).Order("id").Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("read alert rules: %w", err)
	}
	out := make([]AlertRule, len(rows))
	for i, r := range rows {
		out[i] = r.rule()
	}
	return out, nil
}

// AlertStates returns every rule's state per group.
func (s *Store) AlertStates(ctx context.Context) ([]AlertState, error) {
	ctx, cancel := s.deadline(ctx)
	defer cancel()
	var rows []alertStateRow
	err := s.DB.WithContext(ctx).Where("rule_id IN (SELECT id FROM alert_rules WHERE cluster = ?)", s.cluster).Order("rule_id, group_name").Find(&rows).Error
	if err != nil {
		return nil, fmt.Errorf("read alert states: %w", err)
	}
	out := make([]AlertState, len(rows))
	for i, r := range rows {
		out[i] = AlertState{RuleID: r.RuleID, Group: r.GroupName, State: r.State, Since: time.UnixMilli(r.SinceMs).UTC(), Value: r.Value,
			FiredAt: timeOrZero(r.FiredAtMs), ResolvedAt: timeOrZero(r.ResolvedAtMs)}
	}
	return out, nil
}

// SaveAlertStates writes changed states and the deliveries they cause in one
// transaction, so a firing state is never stored without its notification. It sets the
// deliveries' ids.
func (s *Store) SaveAlertStates(ctx context.Context, states []AlertState, deliveries []AlertDelivery) error {
	ctx, cancel := s.deadline(ctx)
	defer cancel()
	if len(states) == 0 && len(deliveries) == 0 {
		return nil
	}
	err := s.DB.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		for _, st := range states {
			row := alertStateRow{RuleID: st.RuleID, GroupName: st.Group, State: st.State, SinceMs: st.Since.UnixMilli(), Value: st.Value,
				FiredAtMs: msOrZero(st.FiredAt), ResolvedAtMs: msOrZero(st.ResolvedAt)}
			if err := tx.Clauses(clause.OnConflict{UpdateAll: true}).Create(&row).Error; err != nil {
				return err
			}
		}
		for i := range deliveries {
			d := &deliveries[i]
			row := alertDeliveryRow{RuleID: d.RuleID, RuleName: d.RuleName, GroupName: d.Group, Event: d.Event, CreatedAtMs: d.CreatedAt.UnixMilli(),
				URL: d.URL, Format: d.Format, Body: d.Body, Status: "pending", NextAtMs: d.CreatedAt.UnixMilli()}
			if err := tx.Create(&row).Error; err != nil {
				return err
			}
			d.ID, d.Status = row.ID, "pending"
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("save %d alert states and %d deliveries: %w", len(states), len(deliveries), err)
	}
	return nil
}

// DueDeliveries returns pending deliveries whose next attempt is due at now, oldest
// first, at most limit.
func (s *Store) DueDeliveries(ctx context.Context, now time.Time, limit int) ([]AlertDelivery, error) {
	ctx, cancel := s.deadline(ctx)
	defer cancel()
	var rows []alertDeliveryRow
	err := s.DB.WithContext(ctx).Where("status = 'pending' AND next_at_ms <= ?", now.UnixMilli()).Order("id").Limit(limit).Find(&rows).Error
	if err != nil {
		return nil, fmt.Errorf("read due alert deliveries: %w", err)
	}
	return deliveriesOf(rows), nil
}

// UpdateDelivery records an attempt: its status, attempts, next attempt, response code
// and error.
func (s *Store) UpdateDelivery(ctx context.Context, d AlertDelivery) error {
	ctx, cancel := s.deadline(ctx)
	defer cancel()
	err := s.DB.WithContext(ctx).Model(&alertDeliveryRow{}).Where("id = ?", d.ID).Updates(map[string]any{
		"status": d.Status, "attempts": d.Attempts, "next_at_ms": msOrZero(d.NextAt), "response_code": d.ResponseCode, "error": d.Error,
	}).Error
	if err != nil {
		return fmt.Errorf("record attempt %d of alert delivery %d: %w", d.Attempts, d.ID, err)
	}
	return nil
}

// AlertDeliveries returns the newest deliveries, of one rule when ruleID > 0.
func (s *Store) AlertDeliveries(ctx context.Context, ruleID int64, limit int) ([]AlertDelivery, error) {
	ctx, cancel := s.deadline(ctx)
	defer cancel()
	q := s.DB.WithContext(ctx)
	if ruleID > 0 {
		q = q.Where("rule_id = ?", ruleID)
	}
	var rows []alertDeliveryRow
	if err := q.Order("id DESC").Limit(limit).Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("read alert deliveries: %w", err)
	}
	return deliveriesOf(rows), nil
}

func deliveriesOf(rows []alertDeliveryRow) []AlertDelivery {
	out := make([]AlertDelivery, len(rows))
	for i, r := range rows {
		out[i] = AlertDelivery{ID: r.ID, RuleID: r.RuleID, RuleName: r.RuleName, Group: r.GroupName, Event: r.Event,
			CreatedAt: time.UnixMilli(r.CreatedAtMs).UTC(), URL: r.URL, Format: r.Format, Body: r.Body, Status: r.Status,
			Attempts: r.Attempts, NextAt: timeOrZero(r.NextAtMs), ResponseCode: r.ResponseCode, Error: r.Error}
	}
	return out
}
