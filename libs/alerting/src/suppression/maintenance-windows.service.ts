import { Injectable } from '@nestjs/common';
import { Clock } from '@platform/core';
import { alertingNotFound, alertingValidation } from '../alerting-exception.js';
import { type Matcher, matcherProblems } from '../matchers/matchers.js';
import { maintenanceWindowView } from './suppression-views.js';
import { SuppressionRepository } from './suppression.repository.js';

export const MAX_WINDOW_MATCHERS = 50;

type FieldProblem = { field: string; messages: string[] };

/** The problems of a matcher list (including its length); empty when valid. */
function matchersProblems(matchers: unknown): FieldProblem[] {
  const problems = matcherProblems(matchers);
  // A label name cannot hold NUL (matcherProblems checks its form); a value could, and
  // PostgreSQL cannot store it.
  if (Array.isArray(matchers))
    matchers.forEach((m: unknown, index) => {
      const value = (m as { value?: unknown } | null)?.value;
      const field = `matchers[${index}]`;
      if (typeof value === 'string' && value.includes('\u0000')) {
        const existing = problems.find((p) => p.field === field);
        const message = 'value must not contain NUL characters';
        if (existing) existing.messages.push(message);
        else problems.push({ field, messages: [message] });
      }
    });
  if (Array.isArray(matchers) && matchers.length > MAX_WINDOW_MATCHERS)
    problems.unshift({
      field: 'matchers',
      messages: [`matchers must have at most ${MAX_WINDOW_MATCHERS} entries`],
    });
  return problems;
}

/** Only the three fields of each matcher are kept; null or omitted is no matcher at all. */
function normalize(matchers: unknown): Matcher[] {
  if (!Array.isArray(matchers)) return [];
  return (matchers as Matcher[]).map(({ label, op, value }) => ({ label, op, value }));
}

/**
 * Maintenance windows of a project: while `starts_at <= now < ends_at`, every alert whose
 * labels pass all of the window's matchers (every alert, without matchers) is stored and
 * timelined but notifies nobody. Windows may be planned ahead or recorded after the fact;
 * `ends_at` must be after `starts_at`. PATCH changes only the fields it sends (null matchers
 * clear them); the interval is checked on the merged result. DELETE removes the window.
 */
@Injectable()
export class MaintenanceWindowsService {
  constructor(
    private readonly clock: Clock,
    private readonly suppression: SuppressionRepository,
  ) {}

  async list(projectId: string) {
    const now = this.clock.now();
    return (await this.suppression.listWindows(projectId)).map((w) =>
      maintenanceWindowView(w, now),
    );
  }

  async show(projectId: string, id: string) {
    return maintenanceWindowView(await this.find(projectId, id), this.clock.now());
  }

  async create(
    projectId: string,
    body: { name: string; starts_at: string; ends_at: string; matchers?: unknown },
    accountId: string,
  ) {
    const startsAt = new Date(body.starts_at);
    const endsAt = new Date(body.ends_at);
    this.check(startsAt, endsAt, body.matchers);
    const now = this.clock.now();
    const window = await this.suppression.createWindow({
      projectId,
      name: body.name.trim(),
      startsAt,
      endsAt,
      matchers: normalize(body.matchers),
      createdBy: accountId,
      at: now,
    });
    return maintenanceWindowView(window, now);
  }

  async update(
    projectId: string,
    id: string,
    body: { name?: string; starts_at?: string; ends_at?: string; matchers?: unknown },
  ) {
    const current = await this.find(projectId, id);
    const startsAt = body.starts_at === undefined ? current.starts_at : new Date(body.starts_at);
    const endsAt = body.ends_at === undefined ? current.ends_at : new Date(body.ends_at);
    this.check(startsAt, endsAt, body.matchers);
    const now = this.clock.now();
    const updated = await this.suppression.updateWindow({
      projectId,
      id,
      name: body.name === undefined ? current.name : body.name.trim(),
      startsAt,
      endsAt,
      matchers: body.matchers === undefined ? current.matchers : normalize(body.matchers),
      at: now,
    });
    if (!updated) throw alertingNotFound('Maintenance window');
    return this.show(projectId, id);
  }

  async delete(projectId: string, id: string): Promise<void> {
    if (!(await this.suppression.deleteWindow(projectId, id)))
      throw alertingNotFound('Maintenance window');
  }

  private async find(projectId: string, id: string) {
    const window = await this.suppression.findWindow(projectId, id);
    if (!window) throw alertingNotFound('Maintenance window');
    return window;
  }

  private check(startsAt: Date, endsAt: Date, matchers: unknown): void {
    const problems: FieldProblem[] = [];
    if (!(endsAt.getTime() > startsAt.getTime()))
      problems.push({ field: 'ends_at', messages: ['ends_at must be after starts_at'] });
    problems.push(...matchersProblems(matchers));
    if (problems.length > 0) throw alertingValidation(problems);
  }
}
