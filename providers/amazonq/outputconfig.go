package amazonq

import "github.com/thinkgate/thinkgate/providers"

// checkOutputConfig reads output_config (docs/providers/amazonq.md): Amazon
// Q's conversation API has neither a reasoning effort nor structured
// output, so effort is not sent and a format is refused with a 400 rather
// than dropped (the client would get free text where it asked for JSON).
func checkOutputConfig(x *providers.Exchange) error {
	oc, err := x.OutputConfig()
	if err != nil {
		return err
	}
	if oc.Schema != nil {
		return providers.NoStructuredOutput("amazonq")
	}
	return nil
}
