/**
 * A self-signed certificate for `hooks.test` (valid until 2126) and its key, for tests of
 * TLS clients: trust `certificate` as the CA and serve both from a local HTTPS server.
 */
export const HOOKS_TEST_TLS = {
  hostname: 'hooks.test',
  certificate: `-----BEGIN CERTIFICATE-----
MIIBmDCCAT6gAwIBAgIUUshnvdXicXrpfYq71cH1i+6xSOYwCgYIKoZIzj0EAwIw
FTETMBEGA1UEAwwKaG9va3MudGVzdDAgFw0yNjExMjYwMTUwNDhaGA8yMTI2MTEw
MjAxNTA0OFowFTETMBEGA1UEAwwKaG9va3MudGVzdDBZMBMGByqGSM49AgEGCCqG
SM49AwEHA0IABBx24X5TOtii0IavbJifAyKdhtOAkYv1/hqn7bCsmGDSOjGhkHmb
D1mZs3R7eDGVeHZjBiMQkAfWqQDw8PnWdw2jajBoMB0GA1UdDgQWBBSd/ezwLaws
Y+a2jqxo2sep2r7JeDAfBgNVHSMEGDAWgBSd/ezwLawsY+a2jqxo2sep2r7JeDAV
BgNVHREEDjAMggpob29rcy50ZXN0MA8GA1UdEwEB/wQFMAMBAf8wCgYIKoZIzj0E
AwIDSAAwRQIgI8Q6PbQoVEEeL7shS/tNpLhS36ANHjYapLLCDOWy3h4CIQD12Hon
S2GAseDT5bfcWGDYQzR85u6hpdv/quABVLptiA==
-----END CERTIFICATE-----
`,
  key: `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQglgbjJXinoCOUFb0M
RvKXrwTXD59DafIrsXol41w5ak6hRANCAAQcduF+UzrYotCGr2yYnwMinYbTgJGL
9f4ap+2wrJhg0joxoZB5mw9ZmbN0e3gxlXh2YwYjEJAH1qkA8PD51ncN
-----END PRIVATE KEY-----
`,
};
