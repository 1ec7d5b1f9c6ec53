package lookup

import (
	"context"
)

// TopicNames lists the cluster's topic names from the NameServer, sorted; retry,
// dead-letter and system topics only when withSystem is set.
func (s *Service) TopicNames(ctx context.Context, withSystem bool) ([]string, error) {
	names, err := s.admin.TopicList(ctx)
	if err != nil {
		return nil, err
	}
	if withSystem {
		return names, nil
	}
	ci, _ := s.cluster.Info(ctx) // without it, only the name patterns decide
	out := names[:0:0]
	for _, n := range names {
		if !ci.IsSystemTopic(n) {
			out = append(out, n)
		}
	}
	return out, nil
}
