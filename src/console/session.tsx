import { createContext, useContext } from 'react';
import type { Account } from './api/types.ts';

export interface Session {
  me: Account | null;
  /** Re-reads /me (after login, setup or logout). */
  refresh: () => void;
}

export const SessionContext = createContext<Session>({ me: null, refresh: () => undefined });
export const useSession = () => useContext(SessionContext);
