import { z } from 'zod';
import { insertAccount } from '../../accounts/repo.ts';
import { EmailSchema } from '../../accounts/schemas.ts';
import { hashPassword } from '../../auth/secrets.ts';
import { text } from '../../shared/text.ts';
import { parseFlags, required, type Command } from '../command.ts';
import { UsageError } from '../../errors/usage-error.ts';
import { withDb } from '../with-db.ts';
import { isUniqueViolation } from '../../db/pg-errors.ts';

const PasswordSchema = z.string().min(8, 'password must have at least 8 characters').max(1024);
const NameSchema = text({ min: 1, max: 160 });

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
}

export const command: Command = {
  usage: 'radar account create --email E [--name N] [--password-stdin] [--admin]',
  async run(argv) {
    const { values } = parseFlags(argv, {
      email: { type: 'string' },
      name: { type: 'string' },
      'password-stdin': { type: 'boolean' },
      admin: { type: 'boolean' },
    });
    const email = EmailSchema.safeParse(required(values.email, 'email'));
    if (!email.success) throw new UsageError(`--email: not an email address`);
    const name = values.name === undefined ? null : NameSchema.safeParse(values.name);
    if (name && !name.success) throw new UsageError(`--name: ${name.error.issues[0]!.message}`);
    let passwordHash: string | null = null;
    if (values['password-stdin']) {
      const pw = PasswordSchema.safeParse(await readStdin());
      if (!pw.success) throw new UsageError(pw.error.issues[0]!.message);
      passwordHash = await hashPassword(pw.data);
    }
    return withDb(async (db) => {
      try {
        const a = await insertAccount(db, {
          email: email.data,
          name: name?.data ?? null,
          passwordHash,
          admin: values.admin ?? false,
        });
        return { id: a.id, email: a.email, admin: a.admin };
      } catch (err) {
        if (isUniqueViolation(err)) throw new UsageError(`an account with email ${email.data} already exists`);
        throw err;
      }
    });
  },
};
