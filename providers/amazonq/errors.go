package amazonq

import "github.com/thinkgate/thinkgate/providers/awsstream"

// upstreamError maps a non-2xx response: Amazon Q's errors are AWS error
// documents.
var upstreamError = awsstream.UpstreamError
