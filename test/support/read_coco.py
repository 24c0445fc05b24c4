"""Reads a COCO annotation file with pycocotools and prints what it found as JSON (test/support/coco.ts)."""
import json
import sys

from pycocotools.coco import COCO

coco = COCO(sys.argv[1])
images = coco.loadImgs(coco.getImgIds())
print(json.dumps({
    "images": [
        {
            "id": image["id"],
            "file_name": image["file_name"],
            "width": image["width"],
            "height": image["height"],
            "media_id": image["media_id"],
            "labels": sorted(coco.loadCats(ann["category_id"])[0]["name"] for ann in coco.loadAnns(coco.getAnnIds(imgIds=[image["id"]]))),
            "boxes": [ann["bbox"] for ann in coco.loadAnns(coco.getAnnIds(imgIds=[image["id"]]))],
        }
        for image in images
    ],
    "categories": sorted(cat["name"] for cat in coco.loadCats(coco.getCatIds())),
    "annotations": len(coco.getAnnIds()),
    "info": coco.dataset.get("info"),
}))
