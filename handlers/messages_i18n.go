package handlers

import (
	"rmqconsole/i18n"
	"rmqconsole/topics"
)

// topicInputSay is a topic change's input error in l's language.
func topicInputSay(l *i18n.Localizer, ie *topics.InputError) string {
	if ie.Text.ID != "" {
		return l.Say(ie.Text)
	}
	return ie.Message
}
