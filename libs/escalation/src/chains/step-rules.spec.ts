import { describe, expect, it } from '@jest/globals';
import type { StepFields } from './chains.repository.js';
import { copyName } from './chains.service.js';
import { mergeStep, normalizeChannels, placeStep, positionProblem } from './step-rules.js';

const ROSTER = '11111111-1111-4111-8111-111111111111';
const MEMBER = '22222222-2222-4222-8222-222222222222';

const rosterStep: StepFields = {
  delay_seconds: 60,
  target_type: 'roster_on_call',
  target_roster_id: ROSTER,
  target_member_id: null,
  target_role: null,
  channels: ['in_app'],
};

const fieldsOf = (problems: Array<{ field: string }>) => problems.map((p) => p.field);

describe('step rules', () => {
  describe('mergeStep on create', () => {
    it('defaults the delay to 0 and keeps only the target field of the type', () => {
      const merged = mergeStep(null, {
        target_type: 'member',
        target_member_id: MEMBER,
        target_roster_id: null,
        channels: ['email', 'in_app'],
      });
      expect(merged.problems).toEqual([]);
      expect(merged.fields).toEqual({
        delay_seconds: 0,
        target_type: 'member',
        target_roster_id: null,
        target_member_id: MEMBER,
        target_role: null,
        channels: ['in_app', 'email'],
      });
      expect(merged.memberToCheck).toBe(MEMBER);
      expect(merged.rosterToCheck).toBeNull();
    });

    it.each([
      ['roster_on_call', 'target_roster_id'],
      ['roster_members', 'target_roster_id'],
      ['phone_contacts', 'target_roster_id'],
      ['member', 'target_member_id'],
      ['role', 'target_role'],
    ] as const)('requires the target field of %s', (type, field) => {
      const merged = mergeStep(null, { target_type: type, channels: ['phone'] });
      expect(fieldsOf(merged.problems)).toEqual([field]);
      expect(merged.problems[0].messages).toEqual([
        `${field} is required when target_type is ${type}`,
      ]);
    });

    it('needs no target field for org_admins and refuses every other one sent', () => {
      expect(mergeStep(null, { target_type: 'org_admins', channels: ['sms'] }).problems).toEqual(
        [],
      );
      const merged = mergeStep(null, {
        target_type: 'org_admins',
        target_roster_id: ROSTER,
        target_member_id: MEMBER,
        target_role: 'Admin',
        channels: ['in_app'],
      });
      expect(fieldsOf(merged.problems)).toEqual([
        'target_roster_id',
        'target_member_id',
        'target_role',
      ]);
      expect(merged.problems[0].messages).toEqual([
        'target_roster_id must be absent or null when target_type is org_admins',
      ]);
    });

    it('lets phone_contacts page by phone and sms only', () => {
      const ok = mergeStep(null, {
        target_type: 'phone_contacts',
        target_roster_id: ROSTER,
        channels: ['sms', 'phone'],
      });
      expect(ok.problems).toEqual([]);
      expect(ok.fields.channels).toEqual(['phone', 'sms']);
      for (const channel of ['in_app', 'email'] as const) {
        const bad = mergeStep(null, {
          target_type: 'phone_contacts',
          target_roster_id: ROSTER,
          channels: ['phone', channel],
        });
        expect(fieldsOf(bad.problems)).toEqual(['channels']);
      }
    });
  });

  describe('mergeStep on update', () => {
    it('keeps everything not sent and checks nothing when no target field is sent', () => {
      const merged = mergeStep({ ...rosterStep, target_roster_id: null }, { delay_seconds: 5 });
      expect(merged.problems).toEqual([]);
      expect(merged.fields).toEqual({ ...rosterStep, target_roster_id: null, delay_seconds: 5 });
      expect(merged.rosterToCheck).toBeNull();
    });

    it('clears the stored field of the previous type when the type changes', () => {
      const merged = mergeStep(rosterStep, { target_type: 'role', target_role: 'Member' });
      expect(merged.problems).toEqual([]);
      expect(merged.fields).toMatchObject({
        target_type: 'role',
        target_roster_id: null,
        target_role: 'Member',
      });
    });

    it('keeps the roster across types that share it and checks it again', () => {
      const merged = mergeStep(
        { ...rosterStep, channels: ['phone'] },
        { target_type: 'phone_contacts' },
      );
      expect(merged.problems).toEqual([]);
      expect(merged.fields.target_roster_id).toBe(ROSTER);
      expect(merged.rosterToCheck).toBe(ROSTER);
    });

    it('checks stored channels against a new phone_contacts type', () => {
      const merged = mergeStep(rosterStep, { target_type: 'phone_contacts' });
      expect(fieldsOf(merged.problems)).toEqual(['channels']);
    });

    it('refuses a field of another type and a cleared required field', () => {
      expect(fieldsOf(mergeStep(rosterStep, { target_member_id: MEMBER }).problems)).toEqual([
        'target_member_id',
      ]);
      expect(fieldsOf(mergeStep(rosterStep, { target_roster_id: null }).problems)).toEqual([
        'target_roster_id',
      ]);
      expect(fieldsOf(mergeStep(rosterStep, { target_type: 'member' }).problems)).toEqual([
        'target_member_id',
      ]);
    });
  });

  it('normalizes channels into catalog order, once each', () => {
    expect(normalizeChannels(['sms', 'in_app', 'sms', 'phone'])).toEqual([
      'in_app',
      'phone',
      'sms',
    ]);
  });

  describe('placeStep', () => {
    const ids = ['a', 'b', 'c', 'd'];

    it('inserts a new id at the position, shifting the later ones', () => {
      expect(placeStep(ids, 'x', 0)).toEqual(['x', 'a', 'b', 'c', 'd']);
      expect(placeStep(ids, 'x', 2)).toEqual(['a', 'b', 'x', 'c', 'd']);
      expect(placeStep(ids, 'x', 4)).toEqual(['a', 'b', 'c', 'd', 'x']);
    });

    it('moves an existing id up or down, keeping the others in order', () => {
      expect(placeStep(ids, 'a', 2)).toEqual(['b', 'c', 'a', 'd']);
      expect(placeStep(ids, 'd', 0)).toEqual(['d', 'a', 'b', 'c']);
      expect(placeStep(ids, 'b', 1)).toEqual(ids);
      expect(placeStep(ids, 'b', 3)).toEqual(['a', 'c', 'd', 'b']);
    });
  });

  it('accepts positions 0..slots-1 only', () => {
    expect(positionProblem(0, 1)).toBeNull();
    expect(positionProblem(3, 4)).toBeNull();
    expect(positionProblem(4, 4)).toEqual({
      field: 'position',
      messages: ['position must be between 0 and 3'],
    });
    expect(positionProblem(-1, 4)?.field).toBe('position');
  });

  it('names a copy "<name> (copy)" within the 200-character limit', () => {
    expect(copyName('Database')).toBe('Database (copy)');
    const long = copyName('x'.repeat(200));
    expect(long).toHaveLength(200);
    expect(long.endsWith('x (copy)')).toBe(true);
  });
});
