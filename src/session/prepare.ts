// The launch's steps under the setup lock, in order, once the engine is
// pinned and the config re-read and judged (src/commands/develop.ts does
// those): claim the session and the exclusive volumes, plan the ports,
// ensure the image, fill the volumes, probe the socket groups, write the
// launch record and the launched trees, create the box. What the steps
// outside the lock need (the banner, the wall's plan, the credentials'
// delivery, the bind proof) is returned, decided here.

import type { ImageInfo } from '../engine/engine.js';
import { exposureLines } from '../status/banner.js';
import { pinSources, type BoxProof } from '../containment/bind-pins.js';
import { launchedTreesOf } from '../containment/writable-trees.js';
import type { CredentialDelivery } from '../credentials/box-delivery.js';
import { VERSION } from '../embedded.js';
import { launchRecordFor } from '../gen/launch-plan.js';
import { containerName } from '../gen/names.js';
import { postureFacts, type PostureFacts } from '../gen/posture.js';
import { edgeNetworkFlags, type RunParams } from '../gen/run-argv.js';
import { edgeHelperName } from '../network/edge.js';
import { launchRunParams } from '../gen/run-params.js';
import { deliveredHostEnv } from '../hostenv/resolve.js';
import { recordLaunchedTrees } from '../launch/trees-record.js';
import { mintNonce, type NetnsPlan } from '../network/netns.js';
import { storeTag } from '../project/store-layout.js';
import { unprovenBanner } from './binds.js';
import { checkExclusiveVolumes, claimAndRecord } from './claim.js';
import type { LaunchInputs, SessionContext } from './context.js';
import { createBox, socketGroups } from './create.js';
import { credentialDelivery, dropBoxEdge, startBoxEdge, type BoxEdge } from './credentials.js';
import { recordEdgeImage } from './edge-image-record.js';
import { currentEdgeImage } from './edge-image.js';
import {
  ensureProjectEdgeImage,
  ensureProjectImage,
  imageDigest,
  lookUpProjectEdgeImage,
  projectImage,
} from './image.js';
import { portBanner, sessionPorts } from './ports.js';
import { writeLaunchRecordOrRefuse } from './record.js';
import { chosenPorts, sealRunParams, sessionRunParams } from './run-params.js';
import { selfEditBind } from './self-edit.js';
import { stageBoundWiring, wiringDelivery } from './bound-wiring.js';
import { splitPlan } from './image-parts.js';
import { fillVolumes, plannedVolumes } from './volumes.js';
import { netnsPlan } from './wall.js';

type BoundWiring = Awaited<ReturnType<typeof stageBoundWiring>>;

/** A created box, and what the steps beside its start need. */
export interface PreparedSession {
  name: string;
  /** The box's container id, as its create returned it. */
  boxId: string;
  banner: string[];
  /** Set when a posture skill must wall the box from outside. */
  netns: NetnsPlan | null;
  /** Set when credential rows must be delivered over the channel (never an injected key, adr/0084). */
  credentials: CredentialDelivery | null;
  /** Set when the box injects: its edge, started before the box was created (adr/0079). */
  edge: BoxEdge | null;
  /** The launch record's hash (the delivery receipt names it). */
  launchHash: string;
  /** What the launcher proves first (adr/0045); null when the engine runs elsewhere. */
  proof: BoxProof | null;
}

/** The run params every launch of this config shares (dockerrun and status build the same). */
function sharedRunParams(
  s: Pick<SessionContext, 'io' | 'ctx' | 'home' | 'engine'>,
  inputs: LaunchInputs,
  posture: PostureFacts,
): RunParams {
  const { io, ctx } = s;
  return launchRunParams(
    {
      box: ctx,
      config: inputs.config,
      skills: inputs.skills,
      engine: s.engine.facts,
      hostUid: io.uid,
      hostGid: io.gid,
      home: s.home,
      hostEnv: deliveredHostEnv(inputs.hostEnv),
      labels: { client: io.pid, store: storeTag(ctx.store.home) },
    },
    posture,
  );
}

/** The box's launch record written, and the params it is created with. */
async function recordLaunch(
  s: SessionContext,
  inputs: LaunchInputs,
  described: RunParams,
  digest: Awaited<ReturnType<typeof imageDigest>>,
  wiring: BoundWiring | null,
): Promise<{ params: RunParams; proof: BoxProof | null; launchHash: string }> {
  const record = launchRecordFor({
    params: described,
    config: inputs.config,
    skills: inputs.skills,
    hostUid: s.io.uid,
    version: VERSION,
    now: s.clock(),
    image: wiring === null ? digest : { ...digest, wiring: wiring.dir },
  });
  // Fail closed: a box without its record is one status cannot describe
  // (it would show the current config and a wrong reason), so none is created.
  const launchHash = writeLaunchRecordOrRefuse(s.ctx.project.launches, record);
  // What this box may write stays a box-writable tree after it (adr/0046).
  await recordLaunchedTrees(
    s.ctx.store.home,
    launchedTreesOf({
      params: described,
      volumes: [
        ...inputs.config.volumes.map((v) => v.value),
        ...inputs.skills.flatMap((k) => k.volumes),
      ],
      projectRoot: s.ctx.projectRoot,
    }),
  );
  // The wiring's sources are pinned beside the others, so the launcher proves
  // them too (adr/0045); byre wrote them, and no rule judges its own files.
  const pins =
    wiring === null || inputs.pins === null
      ? inputs.pins
      : new Map([...inputs.pins, ...pinSources(wiring.binds.map((b) => b.host))]);
  return { ...sealRunParams(described, launchHash, pins, wiring?.binds ?? []), launchHash };
}

/**
 * The box's edge (adr/0079), started as early as it can be: at once when
 * the image under its tag is current (beside the box image's checks), else
 * after the box image, once its own is built (so two builds never share the
 * line). `early` settles with the one started at once, or null.
 */
function edgeSteps(
  s: Pick<
    SessionContext,
    'io' | 'ctx' | 'engine' | 'verbose' | 'edgeImage' | 'recordedEdgeImage' | 'earlyEdge'
  >,
  inputs: Pick<LaunchInputs, 'edge'>,
  target: { box: string; network: readonly string[] },
): { early: Promise<BoxEdge | null>; afterBoxImage: () => Promise<BoxEdge | null> } {
  const { engine, ctx } = s;
  const launch = inputs.edge;
  const before = s.earlyEdge ?? Promise.resolve(null);
  if (launch === null) {
    // The lock's read injects nothing: an edge started before it goes.
    const none = before.then((e) => e?.drop()).then(() => null);
    return { early: none, afterBoxImage: () => none };
  }
  // The one started before the lock when its plan still holds (adr/0080), else one now.
  const on = async (image: string): Promise<BoxEdge> => {
    const start = { launch, project: ctx.projectId, image, ...target };
    return (await (await before)?.adopt(start)) ?? startBoxEdge(engine, start);
  };
  // Asked once, only when it must be.
  let asked: Promise<ImageInfo | null> | undefined;
  const known = (): Promise<ImageInfo | null> =>
    (asked ??= s.edgeImage ?? lookUpProjectEdgeImage(engine, ctx));
  const early = (async (): Promise<BoxEdge | null> => {
    const e = await before;
    // An early edge on the image recorded current (adr/0083) that the engine made: it exists.
    const recorded = s.recordedEdgeImage;
    if (recorded !== undefined && e?.image === recorded && (await e.made)) return on(recorded);
    const current = currentEdgeImage(engine.facts.name, await known());
    if (current !== null) {
      // Found current under the tag: the next launch's early edge runs on it without asking
      // (adr/0083); a build records its own (ensureProjectEdgeImage).
      await recordEdgeImage(ctx.project.edgeImageRecord, engine.facts.name, current).catch(
        () => undefined,
      );
      return on(current);
    }
    await e?.drop();
    return null;
  })();
  const afterBoxImage = async (): Promise<BoxEdge | null> =>
    (await early) ??
    on(
      await ensureProjectEdgeImage(
        engine,
        s.io,
        ctx,
        { noCache: false, verbose: s.verbose },
        known(),
      ),
    );
  return { early, afterBoxImage };
}

/** Every step under the lock, in order; the box exists, created, when this returns. */
export async function prepareSession(
  s: SessionContext,
  inputs: LaunchInputs,
): Promise<PreparedSession> {
  const { io, ctx, engine } = s;
  const posture = postureFacts(inputs.config, inputs.skills);
  const volumes = plannedVolumes(ctx.projectId, io.uid, inputs);
  const claim = { ...s, selfPid: io.pid };
  await Promise.all([
    claimAndRecord(claim, inputs.config.engine.value, engine.facts.name),
    checkExclusiveVolumes(claim, volumes),
  ]);
  const ports = await sessionPorts(
    claim,
    inputs.config.ports.map((p) => p.value),
  );
  const image = projectImage(ctx.projectId, engine.facts.keepId, io);
  const progress = { io, verbose: s.verbose };
  const delivery = wiringDelivery(engine.facts, inputs.elsewhere);
  const name = containerName(ctx.worktreeId);
  const shared = sharedRunParams(s, inputs, posture);
  const edging = edgeSteps(s, inputs, {
    box: name,
    network: edgeNetworkFlags({
      ...shared,
      ports: chosenPorts(shared, ports),
      edgeHosts: inputs.edge?.hostEntries ?? [],
    }),
  });
  let edge: BoxEdge | null = null;
  try {
    const built = await ensureProjectImage(engine, ctx, inputs, image, {
      noCache: false,
      progress,
      locateBase: true,
      wiring: delivery,
    });
    edge = await edging.afterBoxImage();
    const wiring =
      delivery === 'bound'
        ? await stageBoundWiring(
            ctx.project.boundWiring,
            splitPlan(inputs.plan).wiring,
            ctx.projectRoot,
          )
        : null;
    await fillVolumes(s, inputs, volumes, image);
    const groupAdd = await socketGroups(s, inputs.skills, image.tag, inputs.pins);
    const described = sessionRunParams(shared, {
      // The reference's per-invocation label for a box acted on from outside.
      run:
        posture.hook !== null || inputs.credentials.length > 0 || inputs.edge !== null
          ? mintNonce()
          : undefined,
      ports,
      selfEdit: s.selfEdit ? selfEditBind(ctx) : null,
      groupAdd,
      walled: posture.hook !== null || inputs.edge !== null,
      edgeHosts: inputs.edge?.hostEntries ?? [],
      edgeKeys: inputs.edge?.keys ?? [],
      edgeHelper: edge === null ? undefined : edgeHelperName(name),
    });
    const sealed = await recordLaunch(
      s,
      inputs,
      described,
      await imageDigest(engine, image.tag, built),
      wiring,
    );
    // The box's create names the edge's network: the helper must exist.
    if (edge !== null) await edge.created;
    const boxId = await createBox(s, sealed.params, volumes);
    return {
      name,
      boxId,
      banner: [
        ...exposureLines(inputs.config, inputs.skills, inputs.hostEnv, undefined, s.selfEdit),
        ...portBanner(ports),
        ...(inputs.elsewhere === null ? [] : [unprovenBanner(inputs.elsewhere)]),
      ],
      netns: netnsPlan(sealed.params, posture, {
        box: name,
        boxId,
        project: ctx.projectId,
        keepId: engine.facts.keepId,
        upstream: io.env['BYRE_WALL_UPSTREAM'],
        edgeHosts: inputs.edge?.upstreams,
      }),
      credentials: credentialDelivery(sealed.params, boxId, inputs.credentials),
      edge,
      launchHash: sealed.launchHash,
      proof: sealed.proof,
    };
  } catch (error) {
    // Nothing of the launch runs on: the edge goes with it.
    const started = edge ?? (await edging.early);
    if (started !== null) await dropBoxEdge(engine, started);
    throw error;
  }
}
