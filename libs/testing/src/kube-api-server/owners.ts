import type { KindStore } from './kind-store.js';
import type { StoredEntry } from './objects.js';

/** Which objects exist by uid, and which objects name each uid in their ownerReferences. */
export class OwnerIndex {
  private readonly byUid = new Map<string, { store: KindStore; namespace: string; name: string }>();
  /** owner uid -> uids of the objects naming it */
  private readonly dependentUids = new Map<string, Set<string>>();

  exists(uid: string): boolean {
    return this.byUid.has(uid);
  }

  hasDependents(uid: string): boolean {
    return this.dependentUids.has(uid);
  }

  /** The objects currently naming `ownerUid` as an owner. */
  dependents(ownerUid: string): Array<{ store: KindStore; entry: StoredEntry }> {
    const found: Array<{ store: KindStore; entry: StoredEntry }> = [];
    for (const uid of this.dependentUids.get(ownerUid) ?? []) {
      const location = this.byUid.get(uid);
      const entry = location?.store.get(location.namespace, location.name);
      if (location && entry) found.push({ store: location.store, entry });
    }
    return found;
  }

  add(store: KindStore, entry: StoredEntry): void {
    this.byUid.set(entry.uid, { store, namespace: entry.namespace, name: entry.name });
    for (const owner of entry.ownerUids) {
      let set = this.dependentUids.get(owner);
      if (!set) this.dependentUids.set(owner, (set = new Set()));
      set.add(entry.uid);
    }
  }

  remove(entry: StoredEntry): void {
    this.byUid.delete(entry.uid);
    for (const owner of entry.ownerUids) {
      const set = this.dependentUids.get(owner);
      set?.delete(entry.uid);
      if (set?.size === 0) this.dependentUids.delete(owner);
    }
  }
}
