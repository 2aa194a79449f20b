import type { Mailer } from '@platform/mail';
import { describe, expect, it, jest } from '@jest/globals';
import { DeferJob } from '@platform/queue';
import { FakeClock } from '@platform/testing';
import type { Job } from 'bullmq';
import {
  type PhoneProvider,
  PhoneProviderError,
  PhoneProviderNotConfiguredError,
} from '../phone/phone-provider.js';
import type { ChannelRegistry } from './channel-registry.js';
import { DeliveryProcessor } from './delivery.processor.js';
import type { DeliveriesRepository, DeliveryRecordUpdate } from './deliveries.repository.js';
import { PhoneChannel } from './phone.channel.js';
import { SmsChannel } from './sms.channel.js';

const NOW = new Date('2025-03-01T12:00:00Z');

function setup(send: () => Promise<{ sid: string; status: string }>) {
  const record = jest.fn<DeliveriesRepository['record']>(async () => 1);
  const provider = {
    sendSms: jest.fn<PhoneProvider['sendSms']>(send),
    call: jest.fn<PhoneProvider['call']>(send),
  } as unknown as PhoneProvider;
  const channels = { sms: new SmsChannel(provider), phone: new PhoneChannel(provider) };
  const processor = new DeliveryProcessor(
    { get: (name: 'sms' | 'phone') => channels[name] } as unknown as ChannelRegistry,
    { record } as unknown as DeliveriesRepository,
    new FakeClock(NOW),
    {} as Mailer,
  );
  return { processor, provider, record };
}

const job = (attemptsMade: number) =>
  ({ id: '1', name: 'sms.send', attemptsMade, opts: { attempts: 5 } }) as unknown as Job;

const recorded = (update: Partial<DeliveryRecordUpdate>) =>
  expect.objectContaining({
    deliveryId: 'd1',
    at: NOW,
    ...update,
  }) as unknown as DeliveryRecordUpdate;

describe('DeliveryProcessor (texts and calls)', () => {
  it('records a sent delivery with the provider id', async () => {
    const { processor, provider, record } = setup(async () => ({ sid: 'SM1', status: 'queued' }));
    await expect(
      processor.sms({ to: '+4915123456789', body: 'hi', deliveryId: 'd1' }, job(0)),
    ).resolves.toEqual({ outcome: 'sent', providerRef: 'SM1' });
    expect(provider.sendSms).toHaveBeenCalledWith('+4915123456789', 'hi');
    expect(record).toHaveBeenCalledWith(
      recorded({ status: 'sent', reason: null, attempted: true, providerRef: 'SM1' }),
    );
  });

  it('fails the delivery without retrying when no provider is configured', async () => {
    const { processor, record } = setup(async () => {
      throw new PhoneProviderNotConfiguredError();
    });
    await expect(
      processor.call({ to: '+4915123456789', text: 'hi', deliveryId: 'd1' }, job(0)),
    ).resolves.toEqual({ outcome: 'failed', reason: 'phone_provider_not_configured' });
    expect(record).toHaveBeenCalledWith(
      recorded({ status: 'failed', reason: 'phone_provider_not_configured', attempted: true }),
    );
  });

  it('keeps the delivery pending and rethrows while attempts remain', async () => {
    const failure = new PhoneProviderError('phone provider answered 500: boom', 500);
    const { processor, record } = setup(async () => {
      throw failure;
    });
    await expect(
      processor.sms({ to: '+4915123456789', body: 'hi', deliveryId: 'd1' }, job(3)),
    ).rejects.toBe(failure);
    expect(record).toHaveBeenCalledWith(
      recorded({ status: 'pending', reason: failure.message, attempted: true }),
    );
  });

  it('marks the delivery failed on the last attempt, and leaves the job failed', async () => {
    const { processor, record } = setup(async () => {
      throw new PhoneProviderError('phone provider answered 503: down', 503);
    });
    await expect(
      processor.sms({ to: '+4915123456789', body: 'hi', deliveryId: 'd1' }, job(4)),
    ).rejects.toThrow('503');
    expect(record).toHaveBeenCalledWith(
      recorded({ status: 'failed', reason: 'phone provider answered 503: down' }),
    );
  });

  it('records nothing over a rate limit: the job waits without using an attempt', async () => {
    const { processor, record } = setup(async () => {
      throw new DeferJob(5_000, 'over the limit');
    });
    await expect(
      processor.sms({ to: '+4915123456789', body: 'hi', deliveryId: 'd1' }, job(0)),
    ).rejects.toBeInstanceOf(DeferJob);
    expect(record).not.toHaveBeenCalled();
  });

  it('a sent delivery whose record fails is still sent (no retry that would send it again)', async () => {
    const { processor, record } = setup(async () => ({ sid: 'SM2', status: 'queued' }));
    record.mockRejectedValueOnce(new Error('database gone'));
    await expect(
      processor.sms({ to: '+4915123456789', body: 'hi', deliveryId: 'd1' }, job(0)),
    ).resolves.toEqual({ outcome: 'sent', providerRef: 'SM2' });
  });

  it('records nothing for a job without a delivery', async () => {
    const { processor, record } = setup(async () => ({ sid: 'SM1', status: 'queued' }));
    await processor.sms({ to: '+4915123456789', body: 'hi' }, job(0));
    expect(record).not.toHaveBeenCalled();
  });
});
