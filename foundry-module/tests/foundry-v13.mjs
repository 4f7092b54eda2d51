// What the stubs do as Foundry v13 does it, where v14 differs (tests/foundry-v14.mjs). The rest
// of Foundry's behaviour is the same in both and lives in tests/foundry-stubs.mjs.

export const V13 = {
  generation: 13,
  // Scene embedded documents the module draws: templates, drawings and regions
  // (https://foundryvtt.com/api/v13/classes/foundry.documents.Scene.html: templates, drawings, regions).
  sceneDocuments: ["MeasuredTemplate", "Drawing", "Region", "Token"],
  // Region shapes (https://foundryvtt.com/api/v13/modules/foundry.data.regionShapes.html and
  // foundry.data.CircleShapeData, PolygonShapeData...): no cone yet.
  regionShapes: ["circle", "ellipse", "polygon", "rectangle"],
  // Who sees a message: ChatMessage.applyRollMode(chatData, rollMode) with the roll modes, the
  // user's choice in the core setting "rollMode"
  // (https://foundryvtt.com/api/v13/classes/foundry.documents.ChatMessage.html#applyrollmode).
  message: {
    apply: "applyRollMode",
    setting: "rollMode",
    modes: { public: "publicroll", gm: "gmroll", blind: "blindroll", self: "selfroll" },
  },
};
