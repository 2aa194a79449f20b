/** The parts of the stock Action Cable client the tests use (the package ships no types). */
declare module '@rails/actioncable' {
  export interface Mixin {
    connected?(): void;
    disconnected?(details: { willAttemptReconnect: boolean }): void;
    rejected?(): void;
    received?(data: unknown): void;
  }
  export interface Subscription {
    identifier: string;
    unsubscribe(): void;
  }
  export interface Consumer {
    url: string;
    subscriptions: {
      create(channel: string | Record<string, unknown>, mixin?: Mixin): Subscription;
    };
    connection: { isOpen(): boolean; getProtocol(): string | null };
    connect(): boolean;
    disconnect(): void;
  }
  export function createConsumer(url?: string): Consumer;
  export const adapters: { WebSocket: unknown; logger: unknown };
  export const logger: { enabled: boolean };
}
