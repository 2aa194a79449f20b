/**
 * The form in which logins are compared: the unique index (`account.login_key`), the lookup at
 * login and the login throttle's counter all use it, so two spellings that reach one account
 * also share one counter. NFKC folds compatibility forms (full-width `ＡＤＡ`, ligatures);
 * lower, upper, lower is full case folding (`ß` and `ẞ` are `ss`, `ı` is `i`); and the `i`
 * with a combining dot above that lowercasing `İ` leaves is `i`.
 */
export function loginKey(login: string): string {
  return login
    .trim()
    .normalize('NFKC')
    .toLowerCase()
    .toUpperCase()
    .toLowerCase()
    .replace(/i\u0307/g, 'i')
    .normalize('NFKC');
}
