import { useState } from 'react';
import { isTimeZone } from '../../shared/time-zone.ts';
import { Field } from './bits.tsx';
import { ZONES } from './zones.ts';

/** A time zone input with the known zones to pick from; `onChange` hears only IANA zones (or UTC). */
export function TimeZoneField({ tz, onChange }: { tz: string; onChange: (tz: string) => void }) {
  const [error, setError] = useState<string | undefined>();
  return (
    <Field label="Time zone" error={error}>
      {(id, d) => (
        <>
          <input
            id={id}
            list={`${id}-zones`}
            defaultValue={tz}
            aria-describedby={d}
            onChange={(e) => {
              const zone = e.target.value;
              if ((isTimeZone(zone) && zone.includes('/')) || zone === 'UTC') {
                setError(undefined);
                onChange(zone);
              } else setError('Not an IANA time zone');
            }}
          />
          <datalist id={`${id}-zones`}>
            {ZONES.map((z) => (
              <option key={z} value={z} />
            ))}
          </datalist>
        </>
      )}
    </Field>
  );
}
