import { Body, Controller, Delete, Get, HttpCode, Post } from '@nestjs/common';
import { Deprecated, ListResult, Public } from '@platform/core';
import { IsEmail, IsInt, IsString, Max, Min } from 'class-validator';
import { DataSource } from 'typeorm';

export class ProbeBody {
  @IsString()
  name!: string;

  @IsEmail()
  email!: string;

  @IsInt()
  @Min(1)
  @Max(10)
  size!: number;
}

export const LEAKY_MESSAGE = 'secret internal detail: password=hunter2';

/** Routes that exercise every branch of the HTTP contract. */
@Public()
@Controller('contract-probe')
export class ContractProbeController {
  constructor(private readonly dataSource: DataSource) {}

  @Get('object')
  object(): { hello: string } {
    return { hello: 'world' };
  }

  @Get('list')
  list(): string[] {
    return ['a', 'b', 'c'];
  }

  @Get('page')
  page(): ListResult<number> {
    return new ListResult([1, 2], 7);
  }

  @Delete('thing')
  @HttpCode(204)
  remove(): void {}

  @Post('validate')
  validate(@Body() body: ProbeBody): ProbeBody {
    return body;
  }

  @Get('fail')
  fail(): never {
    throw new Error(LEAKY_MESSAGE);
  }

  @Get('bad-sql')
  async badSql(): Promise<unknown> {
    return this.dataSource.query('SELECT * FROM table_that_does_not_exist WHERE secret = 1');
  }

  @Get('deprecated')
  @Deprecated({
    deprecatedAt: '2026-06-01T00:00:00Z',
    sunset: '2027-06-01T00:00:00Z',
    guide: 'https://docs.example.com/migrations/contract-probe',
  })
  deprecated(): { still: string } {
    return { still: 'serving' };
  }
}
