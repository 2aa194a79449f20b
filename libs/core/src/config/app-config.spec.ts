import { describe, expect, it, jest } from '@jest/globals';
import {
  ConfigValidationError,
  DEVELOPMENT_SECRET_KEY,
  loadConfig,
  loadConfigOrExit,
} from './app-config.js';

function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigValidationError) return error.problems;
    throw error;
  }
  throw new Error('configuration was accepted');
}

describe('loadConfig', () => {
  it('fills every default of the conventions table', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      port: 3000,
      publicUrl: 'http://localhost:3000',
      databaseUrl: 'postgres://postgres@127.0.0.1:5432/platform',
      redisUrl: 'redis://127.0.0.1:6379',
      secretKey: DEVELOPMENT_SECRET_KEY,
      secretKeyIsDefault: true,
      platformAdmin: null,
      passwordHashing: { memoryCostKiB: 65536, timeCost: 3, parallelism: 4 },
      smtpUrl: null,
      mailFrom: 'platform@localhost',
      phone: null,
      rgw: null,
      testAlertAutoResolveSeconds: 600,
      signedLinkTtlSeconds: 86400,
      digestFlushIntervalSeconds: 900,
      escalationSweepIntervalMs: 5000,
      alertDispatchSweepIntervalMs: 5000,
      alertSearchMemoryMb: 256,
      outboundAllowPrivateNetworks: false,
      metricsToken: null,
    });
  });

  it('links to the port the API listens on until PUBLIC_URL is set', () => {
    expect(loadConfig({ PORT: '8080' }).publicUrl).toBe('http://localhost:8080');
    expect(loadConfig({ PORT: '8080', PUBLIC_URL: 'https://api.example.com' }).publicUrl).toBe(
      'https://api.example.com',
    );
  });

  it('reads every variable', () => {
    const config = loadConfig({
      PORT: '8080',
      PUBLIC_URL: 'https://api.example.com/',
      DATABASE_URL: 'postgresql://u:p@db:5432/x',
      REDIS_URL: 'rediss://cache:6380/2',
      SECRET_KEY: 'k'.repeat(40),
      PLATFORM_ADMIN_LOGIN: 'root@example.com',
      PLATFORM_ADMIN_PASSWORD: 'correct horse battery',
      SMTP_URL: 'smtp://127.0.0.1:1025',
      MAIL_FROM: 'Platform <noreply@example.com>',
      PHONE_API_URL: 'http://127.0.0.1:9000',
      PHONE_ACCOUNT_SID: 'AC1',
      PHONE_AUTH_TOKEN: 'tok',
      PHONE_FROM: '+4930123456',
      RGW_ADMIN_URL: 'http://rgw:7480',
      RGW_ACCESS_KEY: 'ak',
      RGW_SECRET_KEY: 'sk',
      RGW_REGION: 'eu-central-1',
      RGW_S3_URL: 'https://s3.example.com/',
      TEST_ALERT_AUTO_RESOLVE_SECONDS: '60',
      SIGNED_LINK_TTL_SECONDS: '3600',
      DIGEST_FLUSH_INTERVAL_SECONDS: '300',
      ESCALATION_SWEEP_INTERVAL_MS: '1000',
      ALERT_DISPATCH_SWEEP_INTERVAL_MS: '0',
      ALERT_SEARCH_MEMORY_MB: '0',
      OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true',
      METRICS_TOKEN: ' scrape-0123456789abcdef ',
    });
    expect(config).toMatchObject({
      port: 8080,
      publicUrl: 'https://api.example.com',
      secretKeyIsDefault: false,
      platformAdmin: { login: 'root@example.com', password: 'correct horse battery' },
      smtpUrl: 'smtp://127.0.0.1:1025',
      mailFrom: 'Platform <noreply@example.com>',
      phone: {
        apiUrl: 'http://127.0.0.1:9000',
        accountSid: 'AC1',
        authToken: 'tok',
        from: '+4930123456',
      },
      rgw: {
        adminUrl: 'http://rgw:7480',
        accessKey: 'ak',
        secretKey: 'sk',
        region: 'eu-central-1',
        s3Url: 'https://s3.example.com',
      },
      testAlertAutoResolveSeconds: 60,
      signedLinkTtlSeconds: 3600,
      digestFlushIntervalSeconds: 300,
      escalationSweepIntervalMs: 1000,
      alertDispatchSweepIntervalMs: 0,
      alertSearchMemoryMb: 0,
      outboundAllowPrivateNetworks: true,
      metricsToken: 'scrape-0123456789abcdef',
    });
  });

  it('signs RGW requests for us-east-1 and sends S3 calls to the admin URL unless told otherwise', () => {
    expect(
      loadConfig({ RGW_ADMIN_URL: 'http://rgw:7480/', RGW_ACCESS_KEY: 'ak', RGW_SECRET_KEY: 'sk' })
        .rgw,
    ).toEqual({
      adminUrl: 'http://rgw:7480',
      accessKey: 'ak',
      secretKey: 'sk',
      region: 'us-east-1',
      s3Url: 'http://rgw:7480',
    });
    // The region and S3 URL alone configure nothing.
    expect(loadConfig({ RGW_REGION: 'x', RGW_S3_URL: 'http://s3:80' }).rgw).toBeNull();
  });

  it('reads METRICS_TOKEN in the operators too, which read no SECRET_KEY', () => {
    const operator = loadConfig(
      { NODE_ENV: 'production', METRICS_TOKEN: 'scrape-0123456789abcdef' },
      { usesSecretKey: false },
    );
    expect(operator.metricsToken).toBe('scrape-0123456789abcdef');
    expect(loadConfig({ METRICS_TOKEN: '  ' }).metricsToken).toBeNull();
  });

  it('reads the trusted proxies, none by default', () => {
    expect(loadConfig({}).trustedProxies).toEqual([]);
    expect(
      loadConfig({ TRUSTED_PROXIES: 'loopback, 10.0.0.0/8,2001:db8::/32 , 192.0.2.1' })
        .trustedProxies,
    ).toEqual(['loopback', '10.0.0.0/8', '2001:db8::/32', '192.0.2.1']);
    expect(problemsOf({ TRUSTED_PROXIES: '10.0.0.0/33,proxy.local,10.0.0.1/8/8' })).toEqual([
      'TRUSTED_PROXIES must list addresses, CIDR ranges, loopback, linklocal or uniquelocal (got "10.0.0.0/33")',
      'TRUSTED_PROXIES must list addresses, CIDR ranges, loopback, linklocal or uniquelocal (got "proxy.local")',
      'TRUSTED_PROXIES must list addresses, CIDR ranges, loopback, linklocal or uniquelocal (got "10.0.0.1/8/8")',
    ]);
  });

  it('reads the networks the per-address rate limits do not count', () => {
    expect(loadConfig({}).rateLimitExemptNetworks).toEqual([]);
    expect(
      loadConfig({ RATE_LIMIT_EXEMPT_NETWORKS: '10.0.0.0/8, 192.0.2.7,2001:db8::/48' })
        .rateLimitExemptNetworks,
    ).toEqual(['10.0.0.0/8', '192.0.2.7', '2001:db8::/48']);
    expect(
      problemsOf({ RATE_LIMIT_EXEMPT_NETWORKS: 'loopback,10.0.0.0/33,2001:db8::/129,1.2.3.4/8/8' }),
    ).toEqual(
      ['loopback', '10.0.0.0/33', '2001:db8::/129', '1.2.3.4/8/8'].map(
        (entry) =>
          `RATE_LIMIT_EXEMPT_NETWORKS must list IP addresses or CIDR ranges (got "${entry}")`,
      ),
    );
  });

  it('reads DNS_RESOLVER as host:port with an address host, the system resolver by default', () => {
    expect(loadConfig({}).dnsResolver).toBeNull();
    expect(loadConfig({ DNS_RESOLVER: '10.0.0.53:53' }).dnsResolver).toBe('10.0.0.53:53');
    expect(loadConfig({ DNS_RESOLVER: '[2001:db8::53]:5353' }).dnsResolver).toBe(
      '[2001:db8::53]:5353',
    );
    for (const value of ['10.0.0.53', 'dns.internal:53', '10.0.0.53:0', '2001:db8::53:53']) {
      expect(problemsOf({ DNS_RESOLVER: value })).toEqual([
        `DNS_RESOLVER must be host:port with an IP address host, e.g. 10.0.0.53:53 or [2001:db8::53]:53 (got "${value}")`,
      ]);
    }
  });

  it('reads the operator settings', () => {
    expect(loadConfig({}).operator).toEqual({
      kubeconfig: null,
      watchNamespaces: [],
      leaderElection: true,
      leaderElectionNamespace: null,
      leaseName: null,
      podName: null,
      resyncPeriodSeconds: 300,
      reconcileWorkers: 4,
    });
    const config = loadConfig({
      KUBECONFIG: '/etc/kube/config',
      WATCH_NAMESPACE: 'team-a, team-b',
      LEADER_ELECTION: 'false',
      LEADER_ELECTION_NAMESPACE: 'operators',
      LEASE_NAME: 'backups-lock',
      POD_NAME: 'backup-operator-7d9f-x2k4q',
      RESYNC_PERIOD_SECONDS: '60',
      RECONCILE_WORKERS: '8',
    });
    expect(config.operator).toEqual({
      kubeconfig: '/etc/kube/config',
      watchNamespaces: ['team-a', 'team-b'],
      leaderElection: false,
      leaderElectionNamespace: 'operators',
      leaseName: 'backups-lock',
      podName: 'backup-operator-7d9f-x2k4q',
      resyncPeriodSeconds: 60,
      reconcileWorkers: 8,
    });
    expect(problemsOf({ LEADER_ELECTION: 'yes', RECONCILE_WORKERS: '0' })).toEqual([
      'LEADER_ELECTION must be true or false (got "yes")',
      'RECONCILE_WORKERS must be an integer from 1 to 64 (got "0")',
    ]);
  });

  it('needs no SECRET_KEY in a process that signs nothing, and keeps none', () => {
    const operator = loadConfig({ NODE_ENV: 'production' }, { usesSecretKey: false });
    expect(operator).toMatchObject({
      nodeEnv: 'production',
      secretKey: '',
      secretKeyIsDefault: false,
    });
    const given = loadConfig(
      { NODE_ENV: 'production', SECRET_KEY: 'short' },
      { usesSecretKey: false },
    );
    expect(given.secretKey).toBe('');
    expect(loadConfig({}, { usesSecretKey: false }).secretKey).toBe('');
    // Other variables are still checked.
    expect(() =>
      loadConfig({ NODE_ENV: 'production', PORT: 'x' }, { usesSecretKey: false }),
    ).toThrow('PORT must be an integer from 1 to 65535 (got "x")');
    expect(problemsOf({ NODE_ENV: 'production' })).toEqual([
      'SECRET_KEY is required when NODE_ENV=production',
    ]);
  });

  it.each([
    [{ PORT: 'abc' }, 'PORT must be an integer from 1 to 65535 (got "abc")'],
    [{ PORT: '70000' }, 'PORT must be an integer'],
    [{ DATABASE_URL: 'mysql://x/y' }, 'DATABASE_URL must use postgres or postgresql'],
    [{ REDIS_URL: 'not a url' }, 'REDIS_URL must be a URL'],
    [{ PUBLIC_URL: 'ftp://x' }, 'PUBLIC_URL must use http or https'],
    [{ SMTP_URL: 'http://mail' }, 'SMTP_URL must use smtp or smtps'],
    [{ MAIL_FROM: 'nobody' }, 'MAIL_FROM must be an e-mail address'],
    [{ DIGEST_FLUSH_INTERVAL_SECONDS: '-5' }, 'DIGEST_FLUSH_INTERVAL_SECONDS must be an integer'],
    [{ NODE_ENV: 'staging' }, 'NODE_ENV must be one of'],
    [
      { ALERT_DISPATCH_SWEEP_INTERVAL_MS: '10' },
      'ALERT_DISPATCH_SWEEP_INTERVAL_MS must be 0 (off) or from 50 to 60000 (got "10")',
    ],
    [
      { ALERT_DISPATCH_SWEEP_INTERVAL_MS: '-1' },
      'ALERT_DISPATCH_SWEEP_INTERVAL_MS must be an integer from 0 to 60000 (got "-1")',
    ],
    [
      { OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'yes' },
      'OUTBOUND_ALLOW_PRIVATE_NETWORKS must be true or false (got "yes")',
    ],
    [
      { METRICS_TOKEN: 'short' },
      'METRICS_TOKEN must be at least 16 visible ASCII characters without spaces',
    ],
    [
      { METRICS_TOKEN: 'two words of a long token' },
      'METRICS_TOKEN must be at least 16 visible ASCII characters without spaces',
    ],
    [{ NODE_ENV: 'production' }, 'SECRET_KEY is required when NODE_ENV=production'],
    [{ NODE_ENV: 'production', SECRET_KEY: 'short' }, 'SECRET_KEY must be at least 32 characters'],
    [
      { PLATFORM_ADMIN_LOGIN: 'root@example.com' },
      'PLATFORM_ADMIN_PASSWORD must be set together with PLATFORM_ADMIN_LOGIN',
    ],
    [
      { PHONE_API_URL: 'http://x', PHONE_FROM: '+1' },
      'PHONE_ACCOUNT_SID, PHONE_AUTH_TOKEN must be set together with',
    ],
    [
      { RGW_ADMIN_URL: 'http://rgw:7480', RGW_ACCESS_KEY: 'ak' },
      'RGW_SECRET_KEY must be set together with RGW_ADMIN_URL, RGW_ACCESS_KEY',
    ],
    [
      {
        RGW_ADMIN_URL: 'http://rgw:7480',
        RGW_ACCESS_KEY: 'ak',
        RGW_SECRET_KEY: 'sk',
        RGW_S3_URL: 'ftp://s3',
      },
      'RGW_S3_URL must use http or https',
    ],
  ])('rejects %j naming the variable', (env, expected) => {
    expect(problemsOf(env).join('\n')).toContain(expected);
  });

  it('reports every bad variable at once', () => {
    const problems = problemsOf({ PORT: 'x', REDIS_URL: 'nope', SIGNED_LINK_TTL_SECONDS: '1' });
    expect(problems).toHaveLength(3);
    expect(problems.map((p) => p.split(' ')[0])).toEqual([
      'PORT',
      'REDIS_URL',
      'SIGNED_LINK_TTL_SECONDS',
    ]);
  });

  it('treats blank values as unset', () => {
    expect(loadConfig({ PORT: '  ', SMTP_URL: '' })).toMatchObject({ port: 3000, smtpUrl: null });
  });

  it('stops the process with a message naming the bad variable', () => {
    class Exited extends Error {}
    const exit = jest.spyOn(process, 'exit').mockImplementation(() => {
      throw new Exited();
    });
    const written: string[] = [];
    const stderr = jest.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
      written.push(String(chunk));
      return true;
    });
    try {
      expect(() =>
        loadConfigOrExit({
          PORT: 'abc',
          LOG_LEVEL: 'loud',
          DATABASE_URL: 'mysql://app:hunter2@db.internal/platform',
        }),
      ).toThrow(Exited);
      expect(exit).toHaveBeenCalledWith(1);
      const output = written.join('');
      expect(output).toContain('PORT must be an integer from 1 to 65535 (got "abc")');
      expect(output).toContain('LOG_LEVEL must be one of');
      // The rejected URL is quoted without its password.
      expect(output).toContain(
        'DATABASE_URL must use postgres or postgresql (got "mysql://app:[redacted]@db.internal/platform")',
      );
      expect(output).not.toContain('hunter2');
    } finally {
      exit.mockRestore();
      stderr.mockRestore();
    }
  });

  it('lets a valid environment through without exiting', () => {
    const exit = jest.spyOn(process, 'exit').mockImplementation(() => {
      throw new Error('exited');
    });
    try {
      expect(loadConfigOrExit({ PORT: '8080' }).port).toBe(8080);
      const operator = loadConfigOrExit({ NODE_ENV: 'production' }, { usesSecretKey: false });
      expect(operator.secretKey).toBe('');
      expect(exit).not.toHaveBeenCalled();
    } finally {
      exit.mockRestore();
    }
  });
});
