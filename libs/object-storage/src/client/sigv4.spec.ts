import { describe, expect, it } from '@jest/globals';
import { type ReceivedRequest, verifySigV4 } from '@platform/testing';
import { type QueryParameter, signRequest, wireQuery } from './sigv4.js';

/** The example credentials and date of AWS's SigV4 documentation for S3. */
const AWS_EXAMPLE = {
  accessKeyId: 'AKIAIOSFODNN7EXAMPLE',
  secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
};
const AWS_DATE = new Date(Date.UTC(2013, 4, 24));
const EMPTY_SHA256 = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';

const signatureOf = (headers: Record<string, string>) =>
  /Signature=([0-9a-f]+)/.exec(headers.authorization)?.[1];

/** What the fake RGW receives for a request the platform signed. */
async function asReceived(
  query: QueryParameter[],
  credentials = AWS_EXAMPLE,
  signingDate = new Date(),
): Promise<ReceivedRequest> {
  const url = new URL('http://rgw.example:7480/admin/user');
  const headers = await signRequest(
    credentials,
    'us-east-1',
    { method: 'PUT', url, query },
    signingDate,
  );
  return {
    method: 'PUT',
    path: url.pathname,
    rawQuery: wireQuery(query),
    headers,
    body: Buffer.alloc(0),
  };
}

const secrets = (accessKey: string) =>
  accessKey === AWS_EXAMPLE.accessKeyId ? AWS_EXAMPLE.secretAccessKey : undefined;

describe('SigV4 of RGW requests', () => {
  it("signs as AWS's documented examples (a bare sub-resource, sorted parameters)", async () => {
    const url = new URL('https://examplebucket.s3.amazonaws.com/');
    const lifecycle = await signRequest(
      AWS_EXAMPLE,
      'us-east-1',
      { method: 'GET', url, query: [['lifecycle', null]] },
      AWS_DATE,
    );
    expect(lifecycle['x-amz-content-sha256']).toBe(EMPTY_SHA256);
    expect(signatureOf(lifecycle)).toBe(
      'fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543',
    );
    const listing = await signRequest(
      AWS_EXAMPLE,
      'us-east-1',
      {
        method: 'GET',
        url,
        query: [
          ['prefix', 'J'],
          ['max-keys', '2'],
        ],
      },
      AWS_DATE,
    );
    expect(signatureOf(listing)).toBe(
      '34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7',
    );
  });

  it("sends bare sub-resources bare and encodes the tenant's `$`", () => {
    expect(
      wireQuery([
        ['quota', null],
        ['uid', 'org1$alice'],
        ['enabled', 'true'],
      ]),
    ).toBe('quota&uid=org1%24alice&enabled=true');
  });

  it("the fake's verifier accepts AWS's documented request, written independently of the signer", () => {
    const verified = verifySigV4(
      {
        method: 'GET',
        path: '/test.txt',
        rawQuery: '',
        headers: {
          host: 'examplebucket.s3.amazonaws.com',
          range: 'bytes=0-9',
          'x-amz-content-sha256': EMPTY_SHA256,
          'x-amz-date': '20130524T000000Z',
          authorization:
            'AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,SignedHeaders=host;range;x-amz-content-sha256;x-amz-date,Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41',
        },
        body: Buffer.alloc(0),
      },
      secrets,
      AWS_DATE.getTime(),
    );
    expect(verified).toEqual({
      ok: true,
      accessKey: 'AKIAIOSFODNN7EXAMPLE',
      region: 'us-east-1',
      service: 's3',
    });
  });

  it("the fake's verifier accepts the platform's Admin Ops requests and refuses tampering", async () => {
    const query: QueryParameter[] = [
      ['quota', null],
      ['uid', 'orgabc$alice'],
      ['max-size-kb', '-1'],
    ];
    const request = await asReceived(query);
    expect(verifySigV4(request, secrets, Date.now())).toMatchObject({ ok: true, service: 's3' });

    const tampered = { ...request, rawQuery: request.rawQuery.replace('-1', '1') };
    expect(verifySigV4(tampered, secrets, Date.now())).toMatchObject({
      ok: false,
      status: 403,
      code: 'SignatureDoesNotMatch',
    });
    const wrongSecret = await asReceived(query, { ...AWS_EXAMPLE, secretAccessKey: 'nope' });
    expect(verifySigV4(wrongSecret, secrets, Date.now())).toMatchObject({
      code: 'SignatureDoesNotMatch',
    });
    const unknown = await asReceived(query, { ...AWS_EXAMPLE, accessKeyId: 'UNKNOWN' });
    expect(verifySigV4(unknown, secrets, Date.now())).toMatchObject({ code: 'InvalidAccessKeyId' });
    const withBody = { ...request, body: Buffer.from('{}') };
    expect(verifySigV4(withBody, secrets, Date.now())).toMatchObject({
      status: 400,
      code: 'XAmzContentSHA256Mismatch',
    });
  });

  it('signs with the wall clock, which RGW holds within 15 minutes of its own', async () => {
    const old = await asReceived([['uid', 'x']], AWS_EXAMPLE, new Date(Date.now() - 16 * 60_000));
    expect(verifySigV4(old, secrets, Date.now())).toMatchObject({ code: 'RequestTimeTooSkewed' });
  });
});
