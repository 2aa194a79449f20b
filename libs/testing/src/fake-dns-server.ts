import dgram from 'node:dgram';
import net from 'node:net';
import {
  decodeMessage,
  DNS_CLASS_IN,
  DNS_TYPE,
  type DnsMessage,
  type DnsQuestion,
  type DnsRecord,
  encodeAddress,
  encodeMessage,
  encodeTxt,
  RCODE,
} from './dns-wire.js';

/** What the server does instead of answering from its records. */
export type DnsFailure = 'servfail' | 'refused' | 'drop';

/** The largest answer over UDP without EDNS (RFC 1035); larger ones are truncated. */
const MAX_UDP_ANSWER = 512;
const TTL = 60;

const key = (name: string) => name.toLowerCase().replace(/\.$/, '');

/**
 * A name server on a free port of 127.0.0.1, speaking the DNS wire format over UDP and TCP
 * (an answer too large for UDP is truncated there, and resolvers ask again over TCP), so the
 * platform's real resolver can be pointed at it (`DNS_RESOLVER`). It answers A, AAAA and TXT
 * questions from the records a test sets: NXDOMAIN for a name without records, an empty
 * answer (NODATA) for a name without records of the type asked. It can fail on demand.
 */
export class FakeDnsServer {
  /** Every question received, names lower case without the final dot. */
  readonly questions: DnsQuestion[] = [];
  /** When set, every query gets this instead of an answer. */
  failure: DnsFailure | null = null;
  private readonly records = new Map<string, DnsRecord[]>();
  private closed = false;

  private constructor(
    private readonly udp: dgram.Socket,
    private readonly tcp: net.Server,
    readonly port: number,
  ) {
    udp.on('message', (query, peer) => {
      const answer = this.answer(query, MAX_UDP_ANSWER);
      if (answer) udp.send(answer, peer.port, peer.address);
    });
    tcp.on('connection', (socket) => this.serveTcp(socket));
  }

  /** Binds UDP to a free port, then TCP to the same one (again, if another took it). */
  static async start(): Promise<FakeDnsServer> {
    for (let attempt = 0; ; attempt++) {
      const udp = dgram.createSocket('udp4');
      await new Promise<void>((resolve) => udp.bind(0, '127.0.0.1', resolve));
      const port = udp.address().port;
      const tcp = net.createServer();
      try {
        await new Promise<void>((resolve, reject) => {
          tcp.once('error', reject);
          tcp.listen(port, '127.0.0.1', resolve);
        });
        return new FakeDnsServer(udp, tcp, port);
      } catch (error) {
        udp.close();
        if (attempt >= 10) throw error;
      }
    }
  }

  /** `DNS_RESOLVER` for the platform. */
  get address(): string {
    return `127.0.0.1:${this.port}`;
  }

  /** Sets the TXT records of a name: one record per value, split into strings of 255 octets. */
  setTxt(name: string, values: Array<string | string[]>): void {
    this.set(name, DNS_TYPE.TXT, values.map(encodeTxt));
  }

  /** Sets the A or AAAA records of a name. */
  setAddresses(name: string, addresses: string[]): void {
    const v6 = addresses.filter((address) => address.includes(':'));
    this.set(name, DNS_TYPE.A, addresses.filter((a) => !a.includes(':')).map(encodeAddress));
    this.set(name, DNS_TYPE.AAAA, v6.map(encodeAddress));
  }

  /** Removes every record of a name (it is NXDOMAIN from then on). */
  remove(name: string): void {
    this.records.delete(key(name));
  }

  /** Stops answering: the port is closed from then on (connection refused). Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await new Promise<void>((resolve) => this.udp.close(() => resolve()));
    await new Promise<void>((resolve) => this.tcp.close(() => resolve()));
  }

  private set(name: string, type: number, data: Buffer[]): void {
    const others = (this.records.get(key(name)) ?? []).filter((record) => record.type !== type);
    const records = [
      ...others,
      ...data.map((d) => ({ name: key(name), type, class: DNS_CLASS_IN, ttl: TTL, data: d })),
    ];
    if (records.length > 0) this.records.set(key(name), records);
    else this.records.delete(key(name));
  }

  /** The answer to a query, or null when it gets none (undecodable, or told to drop). */
  private answer(raw: Buffer, limit: number): Buffer | null {
    let query: DnsMessage;
    try {
      query = decodeMessage(raw);
    } catch {
      // Echo the id when there is one, as name servers do with garbage: FORMERR.
      return raw.length >= 2 ? this.reply(raw.readUInt16BE(0), [], RCODE.FORMERR) : null;
    }
    if (query.flags.qr) return null;
    this.questions.push(...query.questions.map((q) => ({ ...q, name: key(q.name) })));
    if (this.failure === 'drop') return null;
    if (this.failure) {
      const rcode = this.failure === 'servfail' ? RCODE.SERVFAIL : RCODE.REFUSED;
      return this.reply(query.id, query.questions, rcode, [], query.flags.rd);
    }
    if (query.flags.opcode !== 0) return this.reply(query.id, query.questions, RCODE.NOTIMP);
    if (query.questions.length !== 1) return this.reply(query.id, query.questions, RCODE.FORMERR);
    const [question] = query.questions;
    const records = this.records.get(key(question.name));
    if (!records) return this.reply(query.id, query.questions, RCODE.NXDOMAIN, [], query.flags.rd);
    // Answers carry the question's own spelling of the name, as servers answer.
    const answers = records
      .filter((record) => record.type === question.type && question.class === DNS_CLASS_IN)
      .map((record) => ({ ...record, name: question.name }));
    const full = this.reply(query.id, query.questions, RCODE.NOERROR, answers, query.flags.rd);
    if (full.length <= limit) return full;
    return this.reply(query.id, query.questions, RCODE.NOERROR, [], query.flags.rd, true);
  }

  private reply(
    id: number,
    questions: DnsQuestion[],
    rcode: number,
    answers: DnsRecord[] = [],
    rd = false,
    truncated = false,
  ): Buffer {
    return encodeMessage({
      id,
      flags: { qr: true, opcode: 0, aa: true, tc: truncated, rd, ra: false, rcode },
      questions,
      answers,
      authorities: [],
      additionals: [],
    });
  }

  /** DNS over TCP: each message preceded by its length in two octets. */
  private serveTcp(socket: net.Socket): void {
    let pending = Buffer.alloc(0);
    socket.on('error', () => socket.destroy());
    socket.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      while (pending.length >= 2 && pending.length >= 2 + pending.readUInt16BE(0)) {
        const message = pending.subarray(2, 2 + pending.readUInt16BE(0));
        pending = pending.subarray(2 + message.length);
        const answer = this.answer(message, 0xffff);
        if (!answer) continue;
        const length = Buffer.alloc(2);
        length.writeUInt16BE(answer.length);
        socket.write(Buffer.concat([length, answer]));
      }
    });
  }
}
