import { escapeXml } from '@platform/notifications';

/** What a page says about its alert. */
export interface PagedAlert {
  alertId: string;
  projectName: string;
  severity: string;
  fingerprint: string;
  alertname: string | null;
  summary: string | null;
}

/** Spoken and texted summaries are cut here: a page is read on a phone, not studied. */
const SHORT_SUMMARY = 200;

const titleOf = (alert: PagedAlert) => alert.alertname || alert.fingerprint;

function shorten(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1).trimEnd()}…`;
}

/** "24 hours", "90 minutes", "45 seconds": how long a link stays valid, in words. */
export function duration(seconds: number): string {
  const [amount, unit] =
    seconds % 3600 === 0
      ? [seconds / 3600, 'hour']
      : seconds % 60 === 0
        ? [seconds / 60, 'minute']
        : [seconds, 'second'];
  return `${amount} ${unit}${amount === 1 ? '' : 's'}`;
}

/** The e-mail page: the alert, and the signed link that acknowledges it in one click. */
export function pageEmail(
  alert: PagedAlert,
  ackUrl: string,
  ttlSeconds: number,
): { subject: string; text: string; html: string } {
  const title = titleOf(alert);
  const subject = `[${alert.severity.toUpperCase()}] ${title}${alert.summary ? `: ${shorten(alert.summary, SHORT_SUMMARY)}` : ''}`;
  const facts: Array<[string, string]> = [
    ['Project', alert.projectName],
    ['Severity', alert.severity],
    ['Alert', title],
    ['Fingerprint', alert.fingerprint],
    ['Alert id', alert.alertId],
  ];
  const text = [
    `Alert ${title} is firing in project ${alert.projectName} and you are being paged.`,
    '',
    ...(alert.summary ? [alert.summary, ''] : []),
    ...facts.map(([label, value]) => `${label}: ${value}`),
    '',
    `Acknowledge it (this stops the escalation): ${ackUrl}`,
    `The link is valid for ${duration(ttlSeconds)}.`,
  ].join('\n');
  const html = [
    `<p>Alert <strong>${escapeXml(title)}</strong> is firing in project ${escapeXml(alert.projectName)} and you are being paged.</p>`,
    ...(alert.summary ? [`<p>${escapeXml(alert.summary)}</p>`] : []),
    '<table>',
    ...facts.map(
      ([label, value]) => `<tr><th align="left">${label}</th><td>${escapeXml(value)}</td></tr>`,
    ),
    '</table>',
    `<p><a href="${escapeXml(ackUrl)}">Acknowledge the alert</a> (this stops the escalation).</p>`,
    `<p>The link is valid for ${duration(ttlSeconds)}.</p>`,
  ].join('\n');
  return { subject, text, html };
}

/** What a call reads out before asking for the answer. */
function spoken(alert: PagedAlert): string {
  const summary = alert.summary ? ` ${shorten(alert.summary, SHORT_SUMMARY)}.` : '';
  return `This is an alert page. ${alert.severity} alert ${titleOf(alert)} is firing in project ${alert.projectName}.${summary}`;
}

/**
 * The call's TwiML: reads the alert and gathers one digit, which Twilio POSTs to `action`;
 * a call nobody answers with a digit ends after saying so.
 */
export function pageTwiml(alert: PagedAlert, action: string): string {
  return (
    `<Response><Gather numDigits="1" action="${escapeXml(action)}" method="POST">` +
    `<Say>${escapeXml(`${spoken(alert)} Press 1 to acknowledge.`)}</Say></Gather>` +
    `<Say>No input received.</Say></Response>`
  );
}

/** The SMS page, ending with the code whose reply acknowledges it. */
export function pageSms(alert: PagedAlert, replyCode: string | null): string {
  const summary = alert.summary ? `: ${shorten(alert.summary, SHORT_SUMMARY)}` : '';
  const head = `[${alert.severity.toUpperCase()}] ${titleOf(alert)} firing in ${alert.projectName}${summary}`;
  return replyCode ? `${head}. Reply ${replyCode} to acknowledge.` : `${head}.`;
}
