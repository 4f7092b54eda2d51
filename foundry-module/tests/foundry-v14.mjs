// What the stubs do as Foundry v14 does it, where v13 differs (tests/foundry-v13.mjs).

export const V14 = {
  generation: 14,
  // v14 removed MeasuredTemplate: Regions replace them (RegionData's shapes:
  // https://foundryvtt.com/api/v14/interfaces/foundry.documents.types.RegionData.html); creating a
  // MeasuredTemplate is an error, as for any document type Foundry does not have.
  sceneDocuments: ["Drawing", "Region", "Token"],
  // https://foundryvtt.com/api/v14/modules/foundry.data.html: CircleShapeData, ConeShapeData,
  // EllipseShapeData, EmanationShapeData, LineShapeData, PolygonShapeData, RectangleShapeData,
  // RingShapeData, TokenShapeData.
  regionShapes: ["circle", "cone", "ellipse", "emanation", "line", "polygon", "rectangle", "ring", "token"],
  // Who sees a message: ChatMessage.applyMode(chatData, mode) with CONFIG.ChatMessage.modes
  // (public, gm, blind, self: https://foundryvtt.com/api/v14/variables/CONFIG.ChatMessage.html),
  // the user's choice in the core setting "messageMode"; applyRollMode is gone.
  message: {
    apply: "applyMode",
    setting: "messageMode",
    modes: { public: "public", gm: "gm", blind: "blind", self: "self" },
  },
};
