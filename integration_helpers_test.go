package thinkgate

import (
	"net/http"

	"github.com/anthropics/anthropic-sdk-go/option"

	"github.com/thinkgate/thinkgate/internal/testgw"
)

// optionHTTPClient makes the SDK use caddytest's client, which trusts the
// test CA for the HTTPS listener.
func optionHTTPClient(gw *testgw.Gateway) option.RequestOption {
	return option.WithHTTPClient(&http.Client{Transport: gw.Tester.Client.Transport})
}
