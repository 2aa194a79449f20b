/**
 * What the outbound client accepts before looking at addresses: an absolute http or https
 * URL with a host and without credentials (receivers authenticate by signature, and a
 * password in a stored URL would be shown to everyone who may read it).
 */
export function outboundUrlProblem(url: URL): string | null {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return 'url must use the http or https scheme';
  }
  if (url.username !== '' || url.password !== '') {
    return 'url must not contain credentials; authenticate receivers by the signature';
  }
  if (url.hostname === '') return 'url must name a host';
  return null;
}

/** The host to resolve or connect to: IPv6 literals lose their brackets. */
export function bareHostname(url: URL): string {
  return url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
}
