import { describe, expect, it, jest } from '@jest/globals';
import { FakeClock } from '@platform/testing';
import type { Job } from 'bullmq';
import type { PhoneDeliveriesRepository } from './phone-deliveries.repository.js';
import {
  type PhoneProvider,
  PhoneProviderError,
  PhoneProviderNotConfiguredError,
} from './phone-provider.js';
import { PhoneProcessor } from './phone.processor.js';

const NOW = new Date('2025-03-01T12:00:00Z');

function setup(send: () => Promise<{ sid: string; status: string }>) {
  const recordAttempt = jest.fn<PhoneDeliveriesRepository['recordAttempt']>(async () => true);
  const provider = {
    sendSms: jest.fn<PhoneProvider['sendSms']>(send),
    call: jest.fn<PhoneProvider['call']>(send),
  };
  const processor = new PhoneProcessor(
    provider as unknown as PhoneProvider,
    { recordAttempt } as unknown as PhoneDeliveriesRepository,
    new FakeClock(NOW),
  );
  return { processor, provider, recordAttempt };
}

const job = (attemptsMade: number) =>
  ({ id: '1', name: 'sms.send', attemptsMade, opts: { attempts: 5 } }) as unknown as Job;

describe('PhoneProcessor', () => {
  it('records a sent delivery', async () => {
    const { processor, provider, recordAttempt } = setup(async () => ({
      sid: 'SM1',
      status: 'queued',
    }));
    await expect(
      processor.sendSms({ to: '+4915123456789', body: 'hi', deliveryId: 'd1' }, job(0)),
    ).resolves.toEqual({ outcome: 'sent', sid: 'SM1', status: 'queued' });
    expect(provider.sendSms).toHaveBeenCalledWith('+4915123456789', 'hi');
    expect(recordAttempt).toHaveBeenCalledWith('d1', 'sent', null, NOW);
  });

  it('fails the delivery without retrying when no provider is configured', async () => {
    const { processor, recordAttempt } = setup(async () => {
      throw new PhoneProviderNotConfiguredError();
    });
    await expect(
      processor.call({ to: '+4915123456789', text: 'hi', deliveryId: 'd1' }, job(0)),
    ).resolves.toEqual({ outcome: 'failed', reason: 'phone_provider_not_configured' });
    expect(recordAttempt).toHaveBeenCalledWith(
      'd1',
      'failed',
      'phone_provider_not_configured',
      NOW,
    );
  });

  it('keeps the delivery queued and rethrows while attempts remain', async () => {
    const failure = new PhoneProviderError('phone provider answered 500: boom', 500);
    const { processor, recordAttempt } = setup(async () => {
      throw failure;
    });
    await expect(
      processor.sendSms({ to: '+4915123456789', body: 'hi', deliveryId: 'd1' }, job(3)),
    ).rejects.toBe(failure);
    expect(recordAttempt).toHaveBeenCalledWith('d1', 'queued', failure.message, NOW);
  });

  it('marks the delivery failed on the last attempt', async () => {
    const { processor, recordAttempt } = setup(async () => {
      throw new PhoneProviderError('phone provider answered 503: down', 503);
    });
    await expect(
      processor.sendSms({ to: '+4915123456789', body: 'hi', deliveryId: 'd1' }, job(4)),
    ).rejects.toThrow('503');
    expect(recordAttempt).toHaveBeenCalledWith(
      'd1',
      'failed',
      'phone provider answered 503: down',
      NOW,
    );
  });

  it('records nothing for a job without a delivery', async () => {
    const { processor, recordAttempt } = setup(async () => ({ sid: 'SM1', status: 'queued' }));
    await processor.sendSms({ to: '+4915123456789', body: 'hi' }, job(0));
    expect(recordAttempt).not.toHaveBeenCalled();
  });
});
