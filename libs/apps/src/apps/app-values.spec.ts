import { describe, expect, it } from '@jest/globals';
import { chartValues, clientValues, IMAGE_PATTERN, splitImage } from './app-kinds.js';
import { validatedValues } from './app-values.js';

const fieldsOf = (call: () => unknown) => {
  try {
    call();
  } catch (error) {
    const details = (error as { details: { fields: Array<{ field: string }> } }).details;
    return details.fields.map((f) => f.field);
  }
  throw new Error('the values passed');
};

describe('app values', () => {
  it('fills defaults and keeps what was sent', () => {
    expect(validatedValues('container', { image: 'r.example.com/ns/app:1.2', port: 8080 })).toEqual(
      { image: 'r.example.com/ns/app:1.2', port: 8080, replicas: 1 },
    );
    expect(
      validatedValues('static_site', {
        host: 'site.example.com',
        git_repository: 'https://git.example.com/me/site.git',
      }),
    ).toMatchObject({ git_branch: 'main', replicas: 1 });
  });

  it.each([
    ['registry.example.com/team/app:v1', true],
    ['registry.example.com:5000/team/sub/app:1.0-rc.1', true],
    ['nginx:1.25', true],
    ['registry.example.com/team/app', false],
    ['registry.example.com/team/App:v1', false],
    ['registry.example.com/team/app:v1@sha256:abc', false],
    ['registry.example.com/team/app:', false],
    ['/team/app:v1', false],
  ])('image %s valid: %s', (image, valid) => {
    expect(new RegExp(IMAGE_PATTERN).test(image)).toBe(valid);
  });

  it('names every failing field, with the path inside the values', () => {
    expect(
      fieldsOf(() =>
        validatedValues('container', {
          image: 'no tag',
          replicas: 21,
          env: [{ name: '1BAD', value: 'x' }, { name: 'OK' }],
          host: 'Not_A_Host',
          extra: true,
        }),
      ).sort(),
    ).toEqual(
      [
        'values.port',
        'values.image',
        'values.replicas',
        'values.env.0.name',
        'values.env.1.value',
        'values.host',
        'values.extra',
      ].sort(),
    );
    expect(fieldsOf(() => validatedValues('container', 'text'))).toEqual(['values']);
    expect(fieldsOf(() => validatedValues('wordpress', {}))).toEqual(['values.host']);
  });

  it('accepts replicas 1 and 20, refuses 0', () => {
    const base = { image: 'r.example.com/a/b:1', port: 80 };
    expect(validatedValues('container', { ...base, replicas: 20 }).replicas).toBe(20);
    expect(fieldsOf(() => validatedValues('container', { ...base, replicas: 0 }))).toEqual([
      'values.replicas',
    ]);
  });

  it("writes a container's image as repository and tag, and reads it back", () => {
    const values = {
      image: 'registry.example.com:5000/ns/app:2.0',
      port: 80,
      replicas: 2,
      env: [{ name: 'A', value: '1' }],
      host: 'app.example.com',
    };
    const chart = chartValues('container', values);
    expect(chart).toEqual({
      image: { repository: 'registry.example.com:5000/ns/app', tag: '2.0' },
      port: 80,
      replicas: 2,
      env: [{ name: 'A', value: '1' }],
      host: 'app.example.com',
    });
    expect(clientValues('container', chart)).toEqual(values);
    expect(splitImage('nginx:1.25')).toEqual({ repository: 'nginx', tag: '1.25' });
  });

  it("places other kinds' values where their charts read them", () => {
    const chart = chartValues('wordpress', { host: 'blog.example.com', blog_name: 'Mine' });
    expect(chart).toEqual({
      ingress: { enabled: true, hostname: 'blog.example.com' },
      wordpressBlogName: 'Mine',
    });
    expect(clientValues('wordpress', chart)).toEqual({
      host: 'blog.example.com',
      blog_name: 'Mine',
    });
    expect(chartValues('nextcloud', { host: 'cloud.example.com' })).toEqual({
      ingress: { enabled: true },
      nextcloud: { host: 'cloud.example.com' },
    });
  });
});
